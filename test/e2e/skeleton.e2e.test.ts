import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAzuriteQueue, type RunningAzurite } from '../../devhost/azurite';
import { startLocalHost, type LocalHost } from '../helpers/local-host';

/**
 * The running skeleton end to end: the compiled app served by the project's local host on a free
 * port, real HTTP, real SQLite, real Azurite, and every stdout line checked against the log schema.
 */
let workDir: string;
let azurite: RunningAzurite;

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'skeleton-e2e-'));
  azurite = await startAzuriteQueue({ port: 0, logFile: path.join(workDir, 'azurite.log') });
});

afterAll(async () => {
  await azurite?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

function expectCleanStdout(host: LocalHost): void {
  expect(host.invalidLines).toEqual([]);
  expect(host.lines.length).toBeGreaterThan(0);
}

function expectProblem(response: Response, body: Record<string, unknown>, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(body).toMatchObject({ type: 'about:blank', status, code });
  expect(body.traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(response.headers.get('x-request-id')).toBeTruthy();
}

describe('the app on the local host with a healthy database and queue', () => {
  let host: LocalHost;

  beforeAll(async () => {
    host = await startLocalHost({
      APP_ENV: 'test',
      SQLITE_PATH: path.join(workDir, 'healthy', 'platform.sqlite'),
      AzureWebJobsStorage: azurite.connectionString,
    });
  });

  afterAll(async () => {
    expect(await host.stop()).toBe(0);
    expectCleanStdout(host);
    expect(host.lines.some((line) => line.message === 'app started' && line.level === 'info')).toBe(true);
    expect(host.lines.some((line) => line.message === 'app stopped' && line.level === 'info')).toBe(true);
  });

  it('answers /api/health without dependencies', async () => {
    const response = await fetch(`${host.baseUrl}/api/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers /api/ready when the database and the queue answer', async () => {
    const response = await fetch(`${host.baseUrl}/api/ready`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', checks: { database: 'ok', queue: 'ok' } });
  });

  it('answers an unknown route with a problem+json 404', async () => {
    const response = await fetch(`${host.baseUrl}/api/v1/does-not-exist?token=canary-in-query`);
    expectProblem(response, (await response.json()) as Record<string, unknown>, 404, 'not_found');
    const line = await host.waitForLine((l) => l.statusCode === 404);
    expect(line.endpoint).toBe('GET /api/{*path}');
    expect(host.stdout.join('\n')).not.toContain('canary-in-query');
  });

  it('writes exactly one request handled line per request, correlated by the caller traceparent', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const response = await fetch(`${host.baseUrl}/api/health`, {
      headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    });
    const requestId = response.headers.get('x-request-id');
    const line = await host.waitForLine((l) => l.requestId === requestId && l.message === 'request handled');
    expect(line).toMatchObject({ traceId, endpoint: 'GET /api/health', statusCode: 200, userId: null, level: 'info' });
    expect(typeof line.durationMs).toBe('number');
    expect(host.lines.filter((l) => l.requestId === requestId && l.message === 'request handled')).toHaveLength(1);
  });
});

describe('the app when the database cannot be opened', () => {
  let host: LocalHost;

  beforeAll(async () => {
    // A regular file where the database folder should be: unwritable even for root.
    const blocker = path.join(workDir, 'not-a-folder');
    writeFileSync(blocker, 'x');
    host = await startLocalHost({ APP_ENV: 'test', SQLITE_PATH: path.join(blocker, 'platform.sqlite') });
  });

  afterAll(async () => {
    await host.stop();
    expectCleanStdout(host);
  });

  it('still answers /api/health', async () => {
    expect((await fetch(`${host.baseUrl}/api/health`)).status).toBe(200);
  });

  it('answers /api/ready with 503 service_unavailable and an error line with errorCode and stack', async () => {
    const response = await fetch(`${host.baseUrl}/api/ready`);
    expectProblem(response, (await response.json()) as Record<string, unknown>, 503, 'service_unavailable');
    expect(response.headers.get('retry-after')).toBe('5');
    const requestId = response.headers.get('x-request-id');
    const errorLine = await host.waitForLine((l) => l.level === 'error' && l.requestId === requestId && l.message === 'dependency unavailable');
    expect(errorLine).toMatchObject({ errorCode: 'service_unavailable', dependency: 'database' });
    expect(String(errorLine.stack)).toMatch(/\n\s+at /);
    const handled = await host.waitForLine((l) => l.requestId === requestId && l.message === 'request handled');
    expect(handled).toMatchObject({ level: 'error', statusCode: 503, errorCode: 'service_unavailable', endpoint: 'GET /api/ready' });
  });
});

describe('the app when the database cannot be opened, on a route that needs it', () => {
  it('answers sign-in with 503 service_unavailable, not 500', async () => {
    const blocker = path.join(workDir, 'another-file');
    writeFileSync(blocker, 'x');
    const host = await startLocalHost({ APP_ENV: 'test', SQLITE_PATH: path.join(blocker, 'platform.sqlite') });
    try {
      const response = await fetch(`${host.baseUrl}/api/v1/auth/child-session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'someone', pin: '482913' }),
      });
      expectProblem(response, (await response.json()) as Record<string, unknown>, 503, 'service_unavailable');
      expect(response.headers.get('retry-after')).toBe('5');
    } finally {
      await host.stop();
    }
    expectCleanStdout(host);
  });
});

describe('start-up with bad configuration', () => {
  it('refuses to start in production without the required settings, naming them', async () => {
    await expect(startLocalHost({ APP_ENV: 'production' }, 15_000)).rejects.toThrow(/SQL_CONNECTION_STRING/);
  });
});
