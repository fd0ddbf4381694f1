import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../helpers/api-client';
import { CanaryTracker } from '../helpers/canaries';
import { generateSigningKey, idTokenClaims, jwksOf, mintIdToken } from '../helpers/id-tokens';
import { startLocalHost, type LocalHost } from '../helpers/local-host';

/**
 * A reviewer's finding: SIGTERM closed the database and exited while requests were still running
 * (only fan-out batches were waited for), and the database then opened again under them. Here a
 * sign-in is held inside the app (its identity provider answers the key request 1 s late) when the
 * host gets SIGTERM: it must complete with 200 (its user and session written), and the app must
 * stop only after it.
 */
const canaries = new CanaryTracker();
const issuer = 'https://idp.shutdown-in-flight.test/';
const audience = 'api://shutdown-in-flight-test';
const key = generateSigningKey();
let workDir: string;
let jwks: Server;
let jwksUrl: string;
let keyRequested: () => void = () => undefined;
const keyRequest = new Promise<void>((resolve) => (keyRequested = resolve));
let answerKeys: () => void = () => undefined;
const keysReleased = new Promise<void>((resolve) => (answerKeys = resolve));
let host: LocalHost | undefined;

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'shutdown-in-flight-e2e-'));
  // An identity provider that holds the key request until the test lets it answer.
  jwks = createServer((request, response) => {
    keyRequested();
    void keysReleased.then(() => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(jwksOf(key)));
    });
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
});

afterAll(async () => {
  answerKeys();
  await host?.stop();
  jwks.closeAllConnections();
  await new Promise<void>((resolve) => jwks.close(() => resolve()));
  rmSync(workDir, { recursive: true, force: true });
});

describe('SIGTERM with a request in flight', () => {
  it('lets the request finish with 200 before the app closes the database and exits 0', async () => {
    host = await startLocalHost({
      APP_ENV: 'test',
      SQLITE_PATH: path.join(workDir, 'platform.sqlite'),
      IDP_JWKS_URI: jwksUrl,
      IDP_ISSUER: issuer,
      IDP_AUDIENCE: audience,
      SHUTDOWN_GRACE_SECONDS: '6',
    });
    const api = new ApiClient(host.baseUrl, canaries);
    const idToken = mintIdToken(key, idTokenClaims({ issuer, audience, now: new Date() }, { sub: 'in-flight-adult' }));
    const signIn = api.signInAdult(idToken);
    await keyRequest;

    const running = host;
    const stopped = running.stop();
    await running.waitForLine((line) => line.message === 'app stopping');
    // The request is inside the app, waiting for the keys, while the app stops.
    setTimeout(answerKeys, 1_000);
    const { response, token } = await signIn;
    expect(response.status).toBe(200);
    expect(token.length).toBeGreaterThan(20);
    expect(await stopped).toBe(0);

    const messages = running.lines.map((line) => line.message);
    const handled = running.lines.findIndex((line) => line.message === 'request handled' && line.endpoint === 'POST /api/v1/auth/session');
    expect(handled).toBeGreaterThan(-1);
    expect(running.lines[handled]).toMatchObject({ statusCode: 200 });
    expect(handled).toBeLessThan(messages.indexOf('app stopped'));
    expect(messages).not.toContain('app stopping with work still running');
    // The app's own lines (the host's say only that no queue storage is set in this test).
    expect(running.lines.filter((line) => line.level === 'error' && line.service !== 'local-host')).toEqual([]);
    expect(running.invalidLines).toEqual([]);
    expect(canaries.findIn(running.stdout.join('\n'))).toEqual([]);
  });
});
