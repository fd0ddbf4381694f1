import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, startLocalHost, type LocalHost } from '../helpers/local-host';

/**
 * A person's mistakes on the way to `npm start` get one line that says what and where, and nothing starts:
 * a broken local.settings.json (its line and column), a port that one already serves (which port, and
 * whether this app or something else listens there). `npm start` runs dist/devhost/start.js from the app's
 * root; here the root is a scratch folder holding only the settings file, so nothing of the repository is touched.
 */
const START = path.join(PROJECT_ROOT, 'dist/devhost/start.js');
const MAIN = path.join(PROJECT_ROOT, 'dist/devhost/main.js');
const workDir = mkdtempSync(path.join(tmpdir(), 'start-mistakes-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** A scratch app root with this local.settings.json. */
function appRootWith(settings: string): string {
  const dir = mkdtempSync(path.join(workDir, 'app-'));
  writeFileSync(path.join(dir, 'local.settings.json'), settings);
  return dir;
}

/** Runs an entry point from `cwd` with a bare environment (no PORT: the settings file's counts). */
function run(entry: string, cwd: string): { status: number | null; stdout: string; stderr: string; ms: number } {
  const started = Date.now();
  const result = spawnSync(process.execPath, [entry], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, ms: Date.now() - started };
}

const BROKEN = '{\n  "IsEncrypted": false,\n  "Values": {\n    "APP_ENV": "development",\n    "LOG_LEVEL": "info",\n  }\n}\n';

describe('npm start with a broken local.settings.json', () => {
  it('stops with one line naming the file, the line and the column, and nothing on stdout', () => {
    const result = run(START, appRootWith(BROKEN));
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('npm start: cannot start: local.settings.json line 5, column 24: not valid JSON: a comma before "}" is not allowed.\n');
  });

  it('the local host itself (node dist/devhost/main.js) says the same in one line, with no internal_error line or stack', () => {
    const result = run(MAIN, appRootWith(BROKEN));
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('local host failed to start: local.settings.json line 5, column 24: not valid JSON: a comma before "}" is not allowed.\n');
  });
});

describe('a second npm start on a port already served', () => {
  let host: LocalHost | undefined;
  let other: Server | undefined;
  afterEach(async () => {
    await host?.stop();
    host = undefined;
    await new Promise((resolve) => (other ? other.close(resolve) : resolve(undefined)));
    other = undefined;
  });

  it('stops at once with one line naming the port and saying this app listens there, and starts nothing', async () => {
    host = await startLocalHost({ APP_ENV: 'test', SQLITE_PATH: path.join(workDir, 'first.sqlite') });
    const port = Number(new URL(host.baseUrl).port);
    const root = appRootWith(JSON.stringify({ IsEncrypted: false, Values: { PORT: String(port), AzureWebJobsStorage: 'UseDevelopmentStorage=true' } }));
    const result = run(START, root);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `npm start: port ${port} is in use: this app already listens there (another npm start?); nothing was started. Stop it, or set PORT to another port.\n`,
    );
    expect(result.ms).toBeLessThan(10_000);
    // Nothing started: no Azurite data, no database, no settings copied; the first host still serves.
    expect(readdirSync(root)).toEqual(['local.settings.json']);
    expect(existsSync(path.join(root, '.data'))).toBe(false);
    expect((await fetch(`${host.baseUrl}/api/health`)).status).toBe(200);
  });

  it('says so when something else holds the port', async () => {
    const server = createServer((socket) => socket.end('not http\r\n'));
    other = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const result = run(START, appRootWith(JSON.stringify({ Values: { PORT: port } })));
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`npm start: port ${port} is in use: something else already listens there (not this app); nothing was started. Stop it, or set PORT to another port.\n`);
  });
});
