import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLogLine } from '../helpers/log-schema';
import { generateSigningKey, idTokenClaims, jwksOf, mintIdToken } from '../helpers/id-tokens';
import { spawnGrpcWorker, startGrpcHost, type StreamingMessage } from './grpc-worker';

/**
 * Under the real Node.js worker, a request still running when the host's
 * `WorkerTerminate` arrived finished (its `request handled` line came before `app stopped`) but its
 * answer never reached the host: the worker calls `process.exit` right after the `appTerminate`
 * hooks, before gRPC has written the invocation's response. Here the worker's sequence is played
 * over a real gRPC stream: a sign-in is held inside the app (its identity provider answers the key
 * request late) when `workerTerminate` arrives; its 200 must reach the host before the process
 * exits, within the 5 s the host allows. Three runs: the loss was 2 of 3 under the real worker.
 */
const issuer = 'https://idp.worker-terminate.test/';
const audience = 'api://worker-terminate-test';
const key = generateSigningKey();
let workDir: string;
let jwks: Server;
let jwksUrl: string;
/** Each key request waits for the release the test gives it. */
const keyRequests: (() => void)[] = [];
let onKeyRequest: () => void = () => undefined;

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'worker-terminate-'));
  jwks = createServer((_request, response) => {
    keyRequests.push(() => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(jwksOf(key)));
    });
    onKeyRequest();
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
});

afterAll(async () => {
  for (const release of keyRequests) release();
  jwks.closeAllConnections();
  await new Promise<void>((resolve) => jwks.close(() => resolve()));
  rmSync(workDir, { recursive: true, force: true });
});

const until = async (condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> => {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('WorkerTerminate with a request in flight, sequenced as the Node.js worker does', () => {
  for (const run of [1, 2, 3]) {
    it(`run ${run}: the request's answer reaches the host before the worker exits, within 5 s`, async () => {
      const host = await startGrpcHost();
      try {
        const worker = spawnGrpcWorker(host.address, {
          APP_ENV: 'test',
          SQLITE_PATH: path.join(workDir, `run-${run}.sqlite`),
          IDP_JWKS_URI: jwksUrl,
          IDP_ISSUER: issuer,
          IDP_AUDIENCE: audience,
          SHUTDOWN_GRACE_SECONDS: '30',
        });
        const stream = await host.connected;
        await worker.loaded;
        const keyRequested = new Promise<void>((resolve) => (onKeyRequest = resolve));
        const body = JSON.stringify({ idToken: mintIdToken(key, idTokenClaims({ issuer, audience, now: new Date() }, { sub: `terminate-${run}` })) });
        stream.write({
          requestId: `request-${run}`,
          invocationRequest: {
            invocationId: `invocation-${run}`,
            functionId: 'auth-session-create',
            method: 'POST',
            url: 'http://localhost/api/v1/auth/session',
            headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
            body,
          },
        } satisfies StreamingMessage);
        // The sign-in is inside the app, waiting for the identity provider's keys.
        await keyRequested;
        const terminatedAt = Date.now();
        stream.write({ requestId: `terminate-${run}`, workerTerminate: { gracePeriod: { seconds: 5 } } });
        const lines = () => worker.stdout().map(parseLogLine);
        await until(() => lines().some((line) => line.message === 'app stopping'), 'app stopping');
        // Released while the app waits to drain: the request finishes during the stop.
        keyRequests.shift()?.();

        const { code, stdout } = await worker.ended;
        expect(code).toBe(0);
        expect(Date.now() - terminatedAt).toBeLessThan(5_000);
        const answer = host.received.find((message) => message.requestId === `request-${run}`);
        expect(answer, 'the invocation response reached the host').toBeDefined();
        expect(answer?.invocationResponse).toMatchObject({ invocationId: `invocation-${run}`, status: 200 });
        const messages = stdout.map(parseLogLine).map((line) => line.message);
        const handled = stdout.map(parseLogLine).findIndex((line) => line.message === 'request handled' && line.statusCode === 200);
        expect(handled).toBeGreaterThan(-1);
        expect(handled).toBeLessThan(messages.indexOf('app stopped'));
        expect(messages).not.toContain('app stopping with work still running');
      } finally {
        await host.close();
      }
    });
  }
});
