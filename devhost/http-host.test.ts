import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLogLine } from '../test/helpers/log-schema';
import { rawExchange as rawExchangeWith, type RawAnswer } from '../test/helpers/raw-http';
import { startHttpHost, type HttpHost } from './http-host';
import { createHookRunner, type HookRunner } from './invocation';
import { loadApp } from './load-app';
import { buildRouteTable } from './route-table';
import { captureHostLogs } from './test-fixtures/host-log-capture';

const fixtureRoot = path.join(__dirname, 'test-fixtures', 'app');
const events = ((globalThis as { __localHostFixtureEvents?: string[] }).__localHostFixtureEvents ??= []);
const { logger, lines, allLines, logged } = captureHostLogs();

let host: HttpHost;
let hooks: HookRunner;
let base: string;
let loadedRegistrations: () => ReturnType<ReturnType<typeof loadApp>['registrations']>;

beforeAll(async () => {
  const core = loadApp(fixtureRoot);
  loadedRegistrations = () => core.registrations();
  hooks = createHookRunner(core, fixtureRoot);
  await hooks.appStart();
  const { routes } = buildRouteTable(core.registrations(), 'api');
  host = await startHttpHost({ routes, hooks, logger, port: 0 });
  base = `http://127.0.0.1:${host.port}`;
});

afterAll(async () => {
  await host?.close();
});

/** A bare-socket exchange with the host under test (or another on `port`). */
function rawExchange(request: string, options: { port?: number; waitMs?: number } = {}): Promise<RawAnswer> {
  return rawExchangeWith({ port: options.port ?? host.port }, request, options);
}

/** A raw request, for what fetch refuses to send (odd methods, unannounced chunked bodies, repeated header lines). */
function raw(
  method: string,
  pathname: string,
  body?: Buffer,
  headers?: Record<string, string | string[]>,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${pathname}`, { method, ...(headers ? { headers } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

describe('the local HTTP host', () => {
  it('binds port 0 to a real port', () => {
    expect(host.port).toBeGreaterThan(0);
  });

  it('routes to the function with route values, query, headers, URL and a fresh trace context', async () => {
    const response = await fetch(`${base}/api/v1/things/42?q=hello`, { headers: { 'x-custom': 'yes' } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, string>;
    expect(body).toMatchObject({ id: '42', q: 'hello', custom: 'yes', functionName: 'things', triggerType: 'httpTrigger' });
    expect(body.url).toBe(`${base}/api/v1/things/42?q=hello`);
    expect(body.invocationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.traceParent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
  });

  it("continues a caller's valid traceparent (same trace id, new span) and replaces an invalid one", async () => {
    const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const continued = (await (await fetch(`${base}/api/v1/things/1`, { headers: { traceparent: incoming } })).json()) as { traceParent: string };
    expect(continued.traceParent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(continued.traceParent).not.toBe(incoming);
    const replaced = (await (await fetch(`${base}/api/v1/things/1`, { headers: { traceparent: 'garbage' } })).json()) as { traceParent: string };
    expect(replaced.traceParent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
  });

  it('sends what only the catch-all matches to the catch-all function', async () => {
    const response = await fetch(`${base}/api/v1/things/not-a-number`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: 'not_found', path: 'v1/things/not-a-number' });
    const wrongMethod = await fetch(`${base}/api/v1/things/1`, { method: 'DELETE' });
    expect(await wrongMethod.json()).toEqual({ code: 'not_found', path: 'v1/things/1' });
  });

  it('answers 404 problem+json itself when no function takes the method and path', async () => {
    const response = await raw('PURGE', '/api/anything');
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(response.text)).toMatchObject({ type: 'about:blank', status: 404, code: 'not_found' });
    expect((await fetch(`${base}/outside-the-prefix`)).status).toBe(404);
  });

  it('passes the body and writes status, headers and body back', async () => {
    const response = await fetch(`${base}/api/v1/echo`, { method: 'POST', body: 'hello body' });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await response.text()).toBe('hello body');
    const empty = await fetch(`${base}/api/v1/echo`, { method: 'POST' });
    expect(empty.status).toBe(201);
    expect(await empty.text()).toBe('');
  });

  it('refuses a body over 16 KiB with 413, announced or streamed', async () => {
    const announced = await fetch(`${base}/api/v1/echo`, { method: 'POST', body: Buffer.alloc(16 * 1024 + 1, 97) });
    expect(announced.status).toBe(413);
    expect(announced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await announced.json()).toEqual({
      type: 'about:blank',
      title: 'Payload too large',
      status: 413,
      code: 'payload_too_large',
      detail: 'The request body is over 16 KiB.',
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });

    const streamedWithLength = await raw('POST', '/api/v1/echo', Buffer.alloc(2 * 1024 * 1024, 98), { 'content-length': String(2 * 1024 * 1024) });
    expect(streamedWithLength.status).toBe(413);
    expect(JSON.parse(streamedWithLength.text)).toMatchObject({ code: 'payload_too_large' });

    const exactlyAtLimit = await fetch(`${base}/api/v1/echo`, { method: 'POST', body: Buffer.alloc(16 * 1024, 97) });
    expect(exactlyAtLimit.status).toBe(201);
    expect((await exactlyAtLimit.text()).length).toBe(16 * 1024);
  });

  it('answers 413 at once to a Content-Length over 16 KiB, before a byte of the body arrives', async () => {
    const answer = await rawExchange(`POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 999999\r\n\r\n`, { waitMs: 2_000 });
    expect(answer.elapsedMs).toBeLessThan(1_000);
    expect(answer.status).toBe(413);
    expect(answer.headers['connection']).toBe('close');
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'payload_too_large', detail: expect.any(String) });
  });

  it('cuts a chunked body off with 413 as soon as it passes 16 KiB, before the rest arrives', async () => {
    const chunk = 'a'.repeat(4096);
    const chunks = Array.from({ length: 5 }, () => `1000\r\n${chunk}\r\n`).join('');
    // Five 4 KiB chunks and no terminating chunk: the body never ends, yet the answer comes.
    const answer = await rawExchange(`POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}`, { waitMs: 2_000 });
    expect(answer.elapsedMs).toBeLessThan(1_000);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'payload_too_large' });
  });

  it('answers Node\'s own refusals as problem+json with X-Request-Id: headers over 32 KiB (431), malformed framing (400)', async () => {
    const huge = await rawExchange(`GET /api/v1/things/1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(40 * 1024)}\r\n\r\n`);
    expect(huge.status).toBe(431);
    expect(huge.headers['content-type']).toBe('application/problem+json');
    expect(huge.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(huge.body)).toEqual({
      type: 'about:blank',
      title: 'Request header fields too large',
      status: 431,
      code: 'headers_too_large',
      detail: expect.any(String),
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    for (const request of [
      'POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd',
      'POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nabcdef',
      'POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ]) {
      const malformed = await rawExchange(request);
      const problem = JSON.parse(malformed.body) as Record<string, unknown>;
      expect(malformed.status, request).toBe(400);
      expect(malformed.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(problem).toMatchObject({ type: 'about:blank', status: 400, code: 'invalid_request', detail: expect.any(String) });
      expect(malformed.body).not.toContain('abcd');
    }
    const refusals = logged().filter((line) => line.message === 'request refused by the HTTP layer');
    expect(refusals.length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(refusals)).not.toContain('bbbb');
  });

  it('answers 408 problem+json and closes the connection when a body stops arriving within the request timeout', async () => {
    const slow = await startHttpHost({ routes: buildRouteTable(loadedRegistrations(), 'api').routes, hooks, logger, port: 0, requestTimeoutMs: 500 });
    try {
      const answer = await rawExchange('POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part', { port: slow.port, waitMs: 5_000 });
      expect(answer.elapsedMs).toBeLessThan(2_500);
      expect(answer.status).toBe(408);
      expect(answer.closed).toBe(true);
      expect(JSON.parse(answer.body)).toMatchObject({ status: 408, code: 'request_timeout', detail: expect.any(String) });
    } finally {
      await slow.close();
    }
  });

  describe('hands requests over as the Functions host does (azure-functions-host, GrpcMessageConversionExtensions.ToRpcHttp)', () => {
    it('drops a body sent without Content-Length: the host copies it only when `ContentLength > 0`', async () => {
      const chunked = await raw('POST', '/api/v1/echo', Buffer.from('a chunked body'));
      expect(chunked.status).toBe(201);
      expect(chunked.text).toBe('');
      // Up to the limit it is read and dropped; past it the answer is 413 (above).
      const long = await raw('POST', '/api/v1/echo', Buffer.alloc(16 * 1024, 98));
      expect(long.status).toBe(201);
      expect(long.text).toBe('');
      const announced = await raw('POST', '/api/v1/echo', Buffer.from('announced'), { 'content-length': '9' });
      expect(announced.text).toBe('announced');
    });

    it('joins the values of a repeated query key with "," under its first spelling, keys case-insensitive (ASP.NET Core `Request.Query`), URL unchanged', async () => {
      const joined = (await (await fetch(`${base}/api/v1/things/1?q=5&q=7`)).json()) as Record<string, string>;
      expect(joined).toMatchObject({ q: '5,7', url: `${base}/api/v1/things/1?q=5&q=7` });
      const folded = (await (await fetch(`${base}/api/v1/things/1?q=a&Q=b&q=`)).json()) as Record<string, string>;
      expect(folded.q).toBe('a,b,');
      // The first spelling names the key: a function asking for `q` finds nothing under `Q`.
      const otherSpelling = (await (await fetch(`${base}/api/v1/things/1?Q=a&q=b`)).json()) as Record<string, string | null>;
      expect(otherSpelling.q).toBeNull();
    });

    it('joins the lines of a repeated header with "," (`StringValues.ToString()`)', async () => {
      const response = await raw('GET', '/api/v1/things/1', undefined, { 'x-custom': ['one', 'two, three'] });
      expect(JSON.parse(response.text)).toMatchObject({ custom: 'one,two, three' });
    });
  });

  it('turns an exception escaping a handler into 500 problem+json and one error line without the message body', async () => {
    lines.length = 0;
    const response = await fetch(`${base}/api/v1/boom`);
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 500, code: 'internal_error' });
    expect(JSON.stringify(body)).not.toContain('kaboom');
    const errors = logged().filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ service: 'local-host', functionName: 'boom', errorCode: 'internal_error', errorType: 'Error', traceId: body.traceId });
  });

  it('treats a handler result that is not an object as a failure, like the library', async () => {
    const response = await fetch(`${base}/api/v1/not-an-object`);
    expect(response.status).toBe(500);
  });

  it('writes every Set-Cookie: from headers and from the cookies list', async () => {
    const response = await fetch(`${base}/api/v1/cookies`);
    expect(response.headers.getSetCookie()).toEqual(['plain=2', 'session=a%20b; Path=/; HttpOnly; SameSite=Strict']);
  });

  it('runs app and invocation hooks with the worker context objects', async () => {
    events.length = 0;
    const response = await fetch(`${base}/api/v1/hooked`);
    expect(await response.json()).toEqual({ by: 'preInvocation hook' });
    expect(response.headers.get('x-post-hook')).toBe('pre');
    await fetch(`${base}/api/v1/boom`);
    expect(events).toEqual(['pre hooked', 'post hooked', 'pre boom', 'post boom failed']);
    await hooks.appTerminate();
    expect(events.at(-1)).toBe('appTerminate after appStart');
  });

  it("collects context.log lines in the host's log with the invocation's names", async () => {
    lines.length = 0;
    await fetch(`${base}/api/v1/things/7`);
    expect(logged()).toContainEqual(expect.objectContaining({ level: 'info', functionName: 'things', category: 'user', message: 'looking at a thing' }));
  });

  it('never logs request bodies or headers', async () => {
    lines.length = 0;
    await fetch(`${base}/api/v1/echo`, { method: 'POST', body: 'secret-body-text', headers: { authorization: 'Bearer secret-token-text' } });
    await fetch(`${base}/api/v1/boom`, { headers: { authorization: 'Bearer secret-token-text' } });
    expect(lines.join('\n')).not.toMatch(/secret-(body|token)-text/);
  });
});

describe('log lines', () => {
  it('all fit the log-line schema (error lines with errorCode and stack)', () => {
    expect(allLines.length).toBeGreaterThan(0);
    for (const line of allLines) expect(() => parseLogLine(line)).not.toThrow();
  });
});
