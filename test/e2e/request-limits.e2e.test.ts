import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import { CanaryTracker } from '../helpers/canaries';
import { rawExchange, type RawAnswer } from '../helpers/raw-http';

/**
 * Under `npm start`'s local host: limits are answered before work. A
 * `Content-Length` over 16 KiB gets 413 at once, a chunked body is cut off at 16 KiB, a body that
 * stops arriving is answered 408 within the request timeout (10 s), and what Node's HTTP layer
 * refuses (headers too large, malformed framing) is answered as problem+json with `X-Request-Id`.
 * Every problem body carries all six members of the contract's problem.
 */
const canaries = new CanaryTracker();
const SECRET_IN_BODY = 'canary-refused-body-7f3a9c';
let env: AuthTestHost;
let port: number;

beforeAll(async () => {
  env = await startAuthTestHost('request-limits', canaries);
  port = Number(new URL(env.host.baseUrl).port);
  canaries.add(SECRET_IN_BODY);
});

afterAll(async () => {
  await env?.stop();
  expect(env.host.invalidLines).toEqual([]);
  expect(canaries.findIn(env.host.stdout.join('\n'))).toEqual([]);
});

const SIX_MEMBERS = ['code', 'detail', 'status', 'title', 'traceId', 'type'];

function expectProblem(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/problem+json');
  expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(SIX_MEMBERS);
  expect(body).toMatchObject({ type: 'about:blank', status, code, detail: expect.any(String), traceId: expect.stringMatching(/^[0-9a-f]{32}$/) });
  expect(answer.body).not.toContain(SECRET_IN_BODY);
}

describe('bodies over 16 KiB', () => {
  it('gets 413 at once for a Content-Length over 16 KiB, without waiting for the body', async () => {
    const answer = await rawExchange(
      { port },
      `POST /api/v1/auth/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 999999\r\n\r\n`,
      { waitMs: 3_000 },
    );
    expect(answer.elapsedMs).toBeLessThan(1_000);
    expectProblem(answer, 413, 'payload_too_large');
    expect(answer.closed).toBe(true);
  });

  it('cuts a chunked body off with 413 at 16 KiB, before it ends', async () => {
    const chunk = `{"idToken":"${SECRET_IN_BODY}${'a'.repeat(4096 - 13 - SECRET_IN_BODY.length)}"}`;
    const chunks = Array.from({ length: 5 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('');
    const answer = await rawExchange(
      { port },
      `POST /api/v1/auth/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}`,
      { waitMs: 3_000 },
    );
    expect(answer.elapsedMs).toBeLessThan(1_000);
    expectProblem(answer, 413, 'payload_too_large');
  });

  it('still drops a chunked body within the limit, as the Functions host does (400 saying to send a Content-Length)', async () => {
    const body = JSON.stringify({ idToken: SECRET_IN_BODY });
    const answer = await rawExchange(
      { port },
      `POST /api/v1/auth/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expectProblem(answer, 400, 'invalid_request');
    expect(JSON.parse(answer.body)).toMatchObject({ detail: expect.stringContaining('Content-Length') });
  });
});

describe("Node's HTTP layer, answered as problem+json", () => {
  it('answers a header section over 32 KiB with 431', async () => {
    const answer = await rawExchange({ port }, `GET /api/v1/me HTTP/1.1\r\nHost: x\r\nX-Filler: ${SECRET_IN_BODY}${'f'.repeat(40 * 1024)}\r\n\r\n`);
    expectProblem(answer, 431, 'headers_too_large');
  });

  it('answers a conflicting or duplicated Content-Length with 400', async () => {
    for (const framing of ['Content-Length: 3\r\nContent-Length: 40', 'Content-Length: 40\r\nTransfer-Encoding: chunked']) {
      const answer = await rawExchange({ port }, `POST /api/v1/auth/session HTTP/1.1\r\nHost: x\r\n${framing}\r\n\r\n{"idToken":"${SECRET_IN_BODY}"}`);
      expectProblem(answer, 400, 'invalid_request');
    }
  });

  it('answers a body that stops arriving with 408 within the request timeout, and closes the connection', async () => {
    const answer = await rawExchange(
      { port },
      `POST /api/v1/auth/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"idToken":"${SECRET_IN_BODY}`,
      { waitMs: 15_000 },
    );
    expect(answer.elapsedMs).toBeLessThan(12_000);
    expectProblem(answer, 408, 'request_timeout');
    expect(answer.closed).toBe(true);
  }, 20_000);
});

describe('every problem answer', () => {
  it('carries detail: 401 unauthenticated, 404 on an unknown path and an unknown id, 405', async () => {
    const anonymous = await env.api.request('GET', '/api/v1/me');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 'unauthenticated', detail: expect.any(String) });
    const badToken = await env.api.request('GET', '/api/v1/me', { token: 'not-a-session-token' });
    expect(badToken.body).toMatchObject({ code: 'unauthenticated', detail: expect.any(String) });
    const { token } = await env.api.signInAdult(env.idToken('limits-adult'));
    const unknownId = await env.api.request('GET', '/api/v1/announcements/11111111-2222-4333-8444-555555555555', { token });
    expect(unknownId.status).toBe(404);
    expect(unknownId.body).toMatchObject({ code: 'not_found', detail: expect.any(String) });
    const unknownPath = await env.api.request('GET', '/api/v1/nowhere');
    expect(unknownPath.body).toMatchObject({ code: 'not_found', detail: expect.any(String) });
    const outside = await env.api.request('GET', '/elsewhere');
    expect(outside.status).toBe(404);
    expect(outside.body).toMatchObject({ code: 'not_found', detail: expect.any(String) });
    for (const answer of [anonymous, badToken, unknownId, unknownPath, outside]) {
      expect(Object.keys(answer.body).sort()).toEqual(SIX_MEMBERS);
    }
  });
});
