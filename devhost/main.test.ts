import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { QueueServiceClient } from '@azure/storage-queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLogLine } from '../test/helpers/log-schema';
import { azuriteQueueConnectionString, startAzuriteQueue, type RunningAzurite } from './azurite';

/** The compiled host process, run against the fixture app (`npm test` builds dist/ first). */
const HOST_ENTRY = path.resolve(__dirname, '..', 'dist', 'devhost', 'main.js');
const fixtureRoot = path.join(__dirname, 'test-fixtures', 'app');
const workDir = mkdtempSync(path.join(tmpdir(), 'local-host-main-'));
let azurite: RunningAzurite;

beforeAll(async () => {
  if (!existsSync(HOST_ENTRY)) throw new Error(`${HOST_ENTRY} is missing: run \`npm run build\` (npm test does it)`);
  azurite = await startAzuriteQueue({ port: 0, logFile: path.join(workDir, 'azurite.log'), startTimeoutMs: 10_000 });
});

afterAll(async () => {
  await azurite?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe('node dist/devhost/main.js', () => {
  it('serves the app, keeps stdout to schema-valid JSON lines, and on SIGTERM ends as the worker would', async () => {
    const child = spawn(process.execPath, [HOST_ENTRY], {
      cwd: fixtureRoot,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        DEVHOST_SKIP_LOCAL_SETTINGS: 'true',
        FIXTURE_CONSOLE_NOISE: 'true',
        AzureWebJobsStorage: azurite.connectionString,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: string[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const listening = new Promise<Record<string, unknown>>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        stdout.push(line);
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (parsed.message === 'local host listening') resolve(parsed);
      });
      void exited.then(({ code }) => reject(new Error(`host exited with ${code}:\n${stderr}`)));
    });

    try {
      const ready = await listening;
      expect(ready).toMatchObject({ service: 'local-host', functionCount: 10 });
      const base = `http://127.0.0.1:${String(ready.port)}`;
      const response = await fetch(`${base}/api/v1/things/3`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id: '3', functionName: 'things' });

      // Event Grid triggers are served at the extension's webhook, outside the route prefix.
      const validation = await fetch(`${base}/runtime/webhooks/eventgrid?functionName=communication-events`, {
        method: 'POST',
        headers: { 'aeg-event-type': 'SubscriptionValidation' },
        body: JSON.stringify([{ id: '1', eventType: 'Microsoft.EventGrid.SubscriptionValidationEvent', data: { validationCode: 'code-1' } }]),
      });
      expect(await validation.json()).toEqual({ validationResponse: 'code-1' });

      // The queue trigger listens with the fixture's host.json settings (base64, 0.5 s polling maximum).
      const notifications = QueueServiceClient.fromConnectionString(azurite.connectionString).getQueueClient('notifications');
      await notifications.createIfNotExists();
      await notifications.sendMessage(Buffer.from('{"hello":"queue"}').toString('base64'));
      const deadline = Date.now() + 5_000;
      while ((await notifications.peekMessages()).peekedMessageItems.length > 0) {
        if (Date.now() > deadline) throw new Error('the queue message was not consumed');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      child.kill('SIGTERM');
    }

    // The fixture app has no signal handler of its own. The Node.js worker installs none either and
    // runs `appTerminate` only on the host's WorkerTerminate message, never on a signal: the host
    // stops its listeners and the signal's default action ends the process, no hook run.
    expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
    for (const line of stdout) expect(() => parseLogLine(line)).not.toThrow();
    expect(JSON.parse(stdout.at(-1) ?? '{}')).toMatchObject({ message: 'local host stopped', signal: 'SIGTERM' });
    expect(stdout.join('\n')).not.toContain('fixture:');
    expect(stderr).toContain('fixture: console.log while loading');
    expect(stderr).not.toContain('fixture: appTerminate');
    // An Azurite already served the endpoint the connection string names, so the host started none.
    expect(existsSync(path.join(fixtureRoot, '.data'))).toBe(false);
  });

  it('refuses to start, with a reason and exit 1, when something other than Azurite holds the queue port', async () => {
    const impostor = createServer((_, res) => res.end('not a queue service'));
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    const port = (impostor.address() as AddressInfo).port;
    try {
      const child = spawn(process.execPath, [HOST_ENTRY], {
        cwd: fixtureRoot,
        env: { PATH: process.env.PATH ?? '', PORT: '0', DEVHOST_SKIP_LOCAL_SETTINGS: 'true', AzureWebJobsStorage: azuriteQueueConnectionString(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
      expect(code).toBe(1);
      expect(stderr).toContain(`local host failed to start: Port ${port} on 127.0.0.1`);
      expect(stderr).toContain('not Azurite');
      const lines = stdout.trim().split('\n').map(parseLogLine);
      expect(lines.at(-1)).toMatchObject({ level: 'error', message: 'local host failed to start', errorType: 'AzuriteRefusedError' });
      expect(lines.map((line) => line.message)).not.toContain('local host listening');
      expect(existsSync(path.join(fixtureRoot, '.data'))).toBe(false);
    } finally {
      impostor.close();
    }
  });
});
