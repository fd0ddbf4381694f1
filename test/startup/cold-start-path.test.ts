import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAZY_PACKAGES } from '../../scripts/bundle-app';

const ROOT = path.resolve(__dirname, '../..');

/** Production settings with placeholder values: nothing is connected while the app loads. */
const PRODUCTION = {
  APP_ENV: 'production',
  IDP_ISSUER: 'https://login.example.com/',
  IDP_AUDIENCE: 'api://platform',
  IDP_JWKS_URI: 'https://login.example.com/keys',
  SQL_CONNECTION_STRING: 'Server=tcp:db.example.com,1433;Database=app;Authentication=Active Directory Default;Encrypt=true',
  CHILD_SECRET_PEPPER: 'placeholder-pepper-0123456789abcdef0123456789',
  AzureWebJobsStorage__accountName: 'account',
  ACS_ENDPOINT: 'https://acs.example.com',
  ACS_SMS_FROM: '+15555550100',
  ACS_EMAIL_SENDER: 'noreply@example.com',
  CONSENT_TERMS_VERSION: '2025-06',
};

/** Loads package.json `main` as the Functions worker does (built by `npm test`'s build) and lists what got loaded. */
function loadLikeTheWorker(env: Record<string, string | undefined>): { files: string[]; builtins: string[]; registrations: number } {
  const script = `
    const { installFunctionsCore } = require(${JSON.stringify(path.join(ROOT, 'dist/devhost/functions-core-shim.js'))});
    const core = installFunctionsCore(() => undefined);
    const main = require(${JSON.stringify(path.join(ROOT, 'package.json'))}).main;
    require(require('node:path').join(${JSON.stringify(ROOT)}, main));
    core.closeRegistration();
    process.stdout.write('\\n' + JSON.stringify({
      files: Object.keys(require.cache),
      builtins: process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)),
      registrations: core.registrations().length,
    }));
    process.exit(0);`;
  const stdout = execFileSync(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  return JSON.parse(stdout.slice(stdout.lastIndexOf('\n') + 1)) as { files: string[]; builtins: string[]; registrations: number };
}

function lazyPackagesIn(files: readonly string[]): string[] {
  const patterns = LAZY_PACKAGES.map((name) => new RegExp(`/node_modules/${name.replace('*', '[^/]+')}/`));
  return [...new Set(files.flatMap((file) => patterns.filter((pattern) => pattern.test(file)).map(String)))];
}

describe('the cold-start path', () => {
  it('registers every function from one bundle, without the packages kept for first use', () => {
    const loaded = loadLikeTheWorker(PRODUCTION);
    expect(loaded.registrations).toBeGreaterThan(20);
    // The bundle runs as a vm.Script from main.js (its own code cache), so it is not a module of its own.
    expect(loaded.files.filter((file) => file.startsWith(path.join(ROOT, 'dist')))).toEqual([
      path.join(ROOT, 'dist/devhost/functions-core-shim.js'),
      path.join(ROOT, 'dist/app/main.js'),
    ]);
    expect(lazyPackagesIn(loaded.files)).toEqual([]);
    // SQL Server in production: the SQLite driver (an experimental-feature warning on Node 22) stays unloaded.
    expect(loaded.builtins).not.toContain('sqlite');
  });

  it("takes @azure/functions's exports once for every registration file (one namespace copy, not one per file)", () => {
    const bundle = readFileSync(path.join(ROOT, 'dist/app/functions.js'), 'utf8');
    expect(bundle.match(/__toESM\(require_azure_functions\(\)/g)).toHaveLength(1);
  });

  it('builds the services and writes its first lines after the appStart hooks are done (when the worker answers), not before', () => {
    const script = `
      const { installFunctionsCore } = require(${JSON.stringify(path.join(ROOT, 'dist/devhost/functions-core-shim.js'))});
      const core = installFunctionsCore(() => undefined);
      require(require('node:path').join(${JSON.stringify(ROOT)}, require(${JSON.stringify(path.join(ROOT, 'package.json'))}).main));
      core.closeRegistration();
      const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));
      process.stdout.write('REGISTERED ' + JSON.stringify(builtins) + '\\n');
      (async () => {
        for (const hook of core.hooks('appStart')) await hook({ hookData: {}, appHookData: {}, functionAppDirectory: ${JSON.stringify(ROOT)} });
        process.stdout.write('STARTED\\n');
        setTimeout(() => process.exit(0), 200);
      })();`;
    const stdout = execFileSync(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '', ...PRODUCTION }, encoding: 'utf8' });
    const [beforeRegistration, afterRegistration = ''] = stdout.split(/^REGISTERED /m);
    // Nothing written, and pino (the only user of worker_threads at start) not yet loaded.
    expect(beforeRegistration).toBe('');
    const builtins = JSON.parse(afterRegistration.slice(0, afterRegistration.indexOf('\n'))) as string[];
    expect(builtins).not.toContain('worker_threads');
    const [untilReady = '', afterReady = ''] = afterRegistration.split(/^STARTED$/m);
    // The hooks wrote nothing and built nothing: the worker's answer waits for no service.
    expect(untilReady.split('\n').filter((line) => line.startsWith('{'))).toEqual([]);
    const messages = afterReady
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { message: string }).message);
    expect(messages).toEqual(['telemetry ready', 'app started']);
  });

  it("loads under the worker's own way of providing @azure/functions-core (a Proxy on Module.prototype.require)", () => {
    // azure-functions-nodejs-worker's setupCoreModule: the bundle runs as a vm.Script with a require
    // made by Module.createRequire, which must still reach the worker's patched require.
    const script = `
      const Module = require('node:module');
      const core = require(${JSON.stringify(path.join(ROOT, 'dist/devhost/functions-core-shim.js'))}).createFunctionsCore(() => undefined);
      Module.prototype.require = new Proxy(Module.prototype.require, {
        apply: (target, self, args) => (args[0] === '@azure/functions-core' ? core.api : Reflect.apply(target, self, args)),
      });
      require(require('node:path').join(${JSON.stringify(ROOT)}, require(${JSON.stringify(path.join(ROOT, 'package.json'))}).main));
      core.closeRegistration();
      process.stdout.write('\\n' + core.registrations().length);
      process.exit(0);`;
    const stdout = execFileSync(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '', ...PRODUCTION }, encoding: 'utf8' });
    expect(Number(stdout.slice(stdout.lastIndexOf('\n') + 1))).toBeGreaterThan(20);
  });

  it("leaves a code cache of the bundle after it ran, keeps a cache V8 accepts, and replaces one it refuses", () => {
    const cacheDir = mkdtempSync(path.join(tmpdir(), 'bundle-cache-'));
    try {
      const cacheFiles = (): string[] =>
        readdirSync(cacheDir, { recursive: true, encoding: 'utf8' }).filter((name) => /app-bundle-.*\.v8$/.test(name)).map((name) => path.join(cacheDir, name));
      const start = (): void => void loadLikeTheWorker({ ...PRODUCTION, NODE_COMPILE_CACHE: cacheDir });
      start();
      const [cache, ...more] = cacheFiles();
      expect(more).toEqual([]);
      if (!cache) throw new Error('no code cache written');
      // Made after the bundle ran: it holds the functions the start called, not only the top level.
      expect(statSync(cache).size).toBeGreaterThan(statSync(path.join(ROOT, 'dist/app/functions.js')).size / 2);
      const written = statSync(cache).mtimeMs;
      start();
      expect(statSync(cache).mtimeMs).toBe(written);
      writeFileSync(cache, 'not a code cache');
      start();
      expect(readFileSync(cache).toString('utf8', 0, 16)).not.toBe('not a code cache');
      expect(cacheFiles()).toEqual([cache]);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it('keeps the telemetry backends off the registration path when one is configured', () => {
    const backends: Record<string, string>[] = [
      { APPLICATIONINSIGHTS_CONNECTION_STRING: 'InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:9/' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
    ];
    for (const backend of backends) {
      expect(lazyPackagesIn(loadLikeTheWorker({ ...PRODUCTION, ...backend }).files)).toEqual([]);
    }
  });
});
