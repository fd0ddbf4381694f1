import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLogLine } from '../helpers/log-schema';
import { startSilentServer, type SilentServer } from '../helpers/silent-server';
import { ROOT } from './worker-load';

/**
 * After the host's `WorkerTerminate` (the `appTerminate` hook, then the Node.js
 * worker exits) the app stops within 3 s whatever the telemetry endpoint does. The built app runs
 * as the worker loads it, with Application Insights configured against an ingestion endpoint that
 * accepts connections and never answers; one invocation tracks an event; then the hook runs.
 */
const workDir = mkdtempSync(path.join(tmpdir(), 'worker-terminate-'));
let silent: SilentServer;

beforeAll(async () => {
  silent = await startSilentServer();
});

afterAll(async () => {
  await silent.close();
  rmSync(workDir, { recursive: true, force: true });
});

/** Loads the app as the worker does, invokes one adult sign-in with a bad token, and runs `appTerminate` on SIGUSR2, then exits as the worker does. */
const SCRIPT = `
  const path = require('node:path');
  const root = ${JSON.stringify(ROOT)};
  const { installFunctionsCore } = require(path.join(root, 'dist/devhost/functions-core-shim.js'));
  const { entryPointFiles } = require(path.join(root, 'dist/devhost/load-app.js'));
  const core = installFunctionsCore(() => undefined);
  for (const file of entryPointFiles(root)) require(file);
  core.closeRegistration();
  const keepAlive = setInterval(() => undefined, 60_000);
  process.on('SIGUSR2', async () => {
    process.stderr.write('TERMINATING\\n');
    for (const hook of core.hooks('appTerminate')) await hook({ hookData: {}, appHookData: {} });
    process.exit(0);
  });
  (async () => {
    for (const hook of core.hooks('appStart')) await hook({ hookData: {}, appHookData: {}, functionAppDirectory: root });
    const { HttpRequest, InvocationContext } = require(require.resolve('@azure/functions', { paths: [root] }));
    const registration = core.registrations().find((r) => r.metadata.name === 'auth-session-create');
    const request = new HttpRequest({ method: 'POST', url: 'http://127.0.0.1:7071/api/v1/auth/session', headers: { 'content-type': 'application/json' }, body: { string: JSON.stringify({ idToken: 'not-a-token' }) } });
    const response = await registration.handler(request, new InvocationContext({ functionName: 'auth-session-create', invocationId: '00000000-0000-4000-8000-000000000001' }));
    process.stderr.write('INVOKED ' + response.status + '\\n');
  })();`;

describe('WorkerTerminate with a telemetry endpoint that never answers', () => {
  it('stops within 3 s of the appTerminate hook, counting what telemetry could not flush in one warn line', async () => {
    const connectionString = `InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:${silent.port}/`;
    const child = spawn(process.execPath, ['-e', SCRIPT], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        APP_ENV: 'test',
        SQLITE_PATH: path.join(workDir, 'app.sqlite'),
        APPLICATIONINSIGHTS_CONNECTION_STRING: connectionString,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let terminateSent = 0;
    const ended = new Promise<{ code: number | null; afterTerminateMs: number }>((resolve) =>
      child.once('close', (code) => resolve({ code, afterTerminateMs: Date.now() - terminateSent })),
    );
    const ready = new Promise<void>((resolve) => {
      const check = (): void => {
        if (stdout.includes('"telemetryBackend":"application-insights","message":"telemetry ready"') && /^INVOKED /m.test(stderr)) resolve();
      };
      child.stdout.on('data', (chunk: Buffer) => ((stdout += chunk.toString()), check()));
      child.stderr.on('data', (chunk: Buffer) => ((stderr += chunk.toString()), check()));
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    try {
      await Promise.race([ready, ended.then(() => Promise.reject(new Error(`the app ended early:\n${stdout}\n${stderr}`)))]);
      terminateSent = Date.now();
      child.kill('SIGUSR2');
      const { code, afterTerminateMs } = await ended;
      expect(code, stderr).toBe(0);
      expect(stderr).toMatch(/^INVOKED 40[01]$/m);
      expect(afterTerminateMs).toBeLessThan(3_000);
      const lines = stdout.split('\n').filter((line) => line.startsWith('{')).map(parseLogLine);
      const notFlushed = lines.filter((line) => line.message === 'telemetry not flushed in time; the rest is dropped');
      expect(notFlushed).toEqual([expect.objectContaining({ level: 'warn', telemetryBackend: 'application-insights' })]);
      expect(notFlushed[0]?.unflushedTelemetryItems).toBeGreaterThanOrEqual(1);
      expect(lines.at(-1)).toMatchObject({ message: 'app stopped' });
      expect(stdout).not.toContain('InstrumentationKey');
    } finally {
      clearTimeout(killer);
      child.kill('SIGKILL');
    }
  }, 60_000);
});
