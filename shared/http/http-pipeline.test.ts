import { randomUUID } from 'node:crypto';
import { HttpRequest, InvocationContext, type HttpResponseInit } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { LogSink } from '../../test/helpers/log-sink';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { problem } from '../errors/problem';
import { createShutdown } from '../lifecycle/shutdown';
import { currentLogContext } from '../logging/log-context';
import { createLogger } from '../logging/logger';
import type { Telemetry } from '../telemetry/telemetry';
import { createHttpPipeline, type AuthenticatedCaller, type EndpointResult, type RequestScope } from './http-pipeline';

function recordingTelemetry() {
  const exceptions: { error: unknown; properties: unknown }[] = [];
  const telemetry: Telemetry = {
    trackEvent: () => undefined,
    trackMetric: () => undefined,
    trackDependency: () => undefined,
    trackException: (error, properties) => exceptions.push({ error, properties }),
    flush: async () => undefined,
  };
  return { telemetry, exceptions };
}

function setup() {
  const sink = new LogSink();
  const { telemetry, exceptions } = recordingTelemetry();
  const endpoint = createHttpPipeline({ logger: createLogger({ service: 'api', level: 'info', destination: sink }), telemetry });
  return { sink, exceptions, endpoint };
}

function request(init: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
  return new HttpRequest({
    method: init.method ?? 'POST',
    url: 'http://localhost:7071/api/v1/things',
    headers: init.headers ?? { 'content-type': 'application/json' },
    ...(init.body === undefined ? {} : { body: { string: init.body } }),
  });
}

function context(traceParent?: string) {
  return new InvocationContext({
    invocationId: randomUUID(),
    functionName: 'things',
    ...(traceParent ? { traceContext: { traceParent, traceState: '', attributes: {} } } : {}),
  });
}

function jsonOf(response: HttpResponseInit): Record<string, unknown> {
  return JSON.parse(String(response.body)) as Record<string, unknown>;
}

function headerOf(response: HttpResponseInit, name: string): string | undefined {
  return (response.headers as Record<string, string>)[name];
}

const thingSchema = z.strictObject({ name: z.string().check(z.minLength(1), z.maxLength(20)) });

describe('createHttpPipeline', () => {
  it('answers the handler result and logs exactly one request handled line, without the body', async () => {
    const { sink, endpoint } = setup();
    const handler = endpoint({ route: 'v1/things', body: thingSchema }, async ({ body }) => ({
      status: 201,
      jsonBody: { created: body.name.length },
    }));
    const ctx = context();
    const response = await handler(request({ body: JSON.stringify({ name: 'secret-body-canary' }) }), ctx);
    expect(response.status).toBe(201);
    expect(jsonOf(response)).toEqual({ created: 18 });
    expect(headerOf(response, 'X-Request-Id')).toBe(ctx.invocationId);
    expect(headerOf(response, 'Cache-Control')).toBe('no-store');
    const handled = sink.withMessage('request handled');
    expect(handled).toHaveLength(1);
    expect(handled[0]).toMatchObject({
      level: 'info',
      endpoint: 'POST /api/v1/things',
      statusCode: 201,
      requestId: ctx.invocationId,
      userId: null,
    });
    expect(sink.text).not.toContain('secret-body-canary');
  });

  it('sends a text body (a page) as is, with the headers the handler gives and the usual ones; HEAD without it', async () => {
    const { endpoint } = setup();
    const handler = endpoint({ route: 'docs' }, async () => ({
      status: 200,
      headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': "default-src 'none'" },
      textBody: '<!doctype html><p>page</p>',
    }));
    const response = await handler(request({ method: 'GET', headers: {} }), context());
    expect(response.body).toBe('<!doctype html><p>page</p>');
    expect(response.headers).toMatchObject({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': "default-src 'none'",
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    const head = await handler(request({ method: 'HEAD', headers: {} }), context());
    expect(head.body).toBeUndefined();
    expect(headerOf(head, 'Content-Type')).toBe('text/html; charset=utf-8');
  });

  it('uses the incoming traceparent for log lines and problem bodies', async () => {
    const { sink, endpoint } = setup();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const handler = endpoint({ route: 'v1/things' }, async () => problem('not_found'));
    const response = await handler(
      request({ method: 'GET', headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } }),
      context(`00-${'b'.repeat(32)}-00f067aa0ba902b7-01`),
    );
    expect(jsonOf(response)).toMatchObject({ status: 404, code: 'not_found', traceId, type: 'about:blank' });
    expect(headerOf(response, 'Content-Type')).toBe('application/problem+json');
    expect(sink.lines[0]).toMatchObject({ traceId, errorCode: 'not_found', statusCode: 404 });
  });

  it('falls back to the invocation trace context, then to a new trace id', async () => {
    const { sink, endpoint } = setup();
    const handler = endpoint({ route: 'v1/things' }, async () => ({ status: 204 }));
    await handler(request({ method: 'GET', headers: { traceparent: 'garbage' } }), context(`00-${'c'.repeat(32)}-00f067aa0ba902b7-01`));
    await handler(request({ method: 'GET' }), context());
    const [first, second] = sink.lines;
    expect(first?.traceId).toBe('c'.repeat(32));
    expect(second?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(second?.traceId).not.toBe(first?.traceId);
  });

  it.each([
    ['not JSON', { body: '{"name":', headers: { 'content-type': 'application/json' } }, 400, 'invalid_request'],
    ['an unknown field', { body: '{"name":"a","admin":true}' }, 400, 'invalid_request'],
    ['a wrong type', { body: '{"name":5}' }, 400, 'invalid_request'],
    ['no body', {}, 400, 'invalid_request'],
    ['a non-JSON content type', { body: 'name=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 415, 'unsupported_media_type'],
    ['a JSON body without content type', { body: '{"name":"a"}', headers: {} }, 415, 'unsupported_media_type'],
    ['a body over 16 KiB', { body: JSON.stringify({ name: 'x'.repeat(17_000) }) }, 413, 'payload_too_large'],
    ['a declared length over 16 KiB', { body: '{}', headers: { 'content-type': 'application/json', 'content-length': '20000' } }, 413, 'payload_too_large'],
    ['invalid UTF-8', { body: undefined, bytes: true }, 400, 'invalid_request'],
  ])('answers %s with a problem and never calls the handler', async (_name, init, status, code) => {
    const { sink, endpoint } = setup();
    let called = false;
    const handler = endpoint({ route: 'v1/things', body: thingSchema }, async () => {
      called = true;
      return { status: 200 };
    });
    const req =
      'bytes' in init
        ? new HttpRequest({
            method: 'POST',
            url: 'http://localhost/api/v1/things',
            headers: { 'content-type': 'application/json' },
            body: { bytes: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]) },
          })
        : request(init as { body?: string; headers?: Record<string, string> });
    const response = await handler(req, context());
    expect(response.status).toBe(status);
    expect(jsonOf(response)).toMatchObject({ code, status });
    expect(called).toBe(false);
    expect(sink.lines[0]).toMatchObject({ level: 'info', statusCode: status, errorCode: code });
  });

  it('never echoes submitted values, nor an unknown member\'s name unless it is a plain name', async () => {
    const { endpoint } = setup();
    const handler = endpoint({ route: 'v1/things', body: thingSchema }, async () => ({ status: 200 }));
    const response = await handler(request({ body: '{"name":"canary-value-123","canary key@456":1}' }), context());
    expect(String(response.body)).not.toMatch(/canary-value-123|canary key@456/);
    const plain = await handler(request({ body: '{"name":"canary-value-123","nickname":1}' }), context());
    expect(jsonOf(plain)).toMatchObject({ errors: [{ pointer: '/nickname', code: 'unknown_field' }] });
    expect(String(plain.body)).not.toContain('canary-value-123');
  });

  it('turns an exception into a 500 without its message, logged at error with stack and sent as an exception', async () => {
    const { sink, exceptions, endpoint } = setup();
    const handler = endpoint({ route: 'v1/things' }, async () => {
      throw new Error('boom with internals');
    });
    const response = await handler(request({ method: 'GET' }), context());
    expect(response.status).toBe(500);
    expect(jsonOf(response)).toMatchObject({ code: 'internal_error' });
    expect(String(response.body)).not.toContain('boom');
    const [line] = sink.lines;
    expect(line).toMatchObject({ level: 'error', errorCode: 'internal_error', statusCode: 500, endpoint: 'GET /api/v1/things' });
    expect(String(line?.stack)).toContain('boom with internals');
    expect(exceptions).toHaveLength(1);
  });

  it('answers an unreachable dependency with 503 service_unavailable and Retry-After', async () => {
    const { sink, endpoint } = setup();
    const handler = endpoint({ route: 'v1/things' }, async () => {
      throw new DependencyUnavailableError('database', { cause: new Error('SQLITE_CANTOPEN') });
    });
    const response = await handler(request({ method: 'GET' }), context());
    expect(response.status).toBe(503);
    expect(headerOf(response, 'Retry-After')).toBe('5');
    expect(sink.lines[0]).toMatchObject({ level: 'error', errorCode: 'service_unavailable' });
    expect(String(sink.lines[0]?.stack)).toContain('SQLITE_CANTOPEN');
  });

  it('logs a returned 5xx problem with a stack even without a cause', async () => {
    const { sink, endpoint } = setup();
    const handler = endpoint({ route: 'v1/things' }, async (): Promise<EndpointResult> => problem('service_unavailable'));
    await handler(request({ method: 'GET' }), context());
    expect(sink.lines[0]?.stack).toMatch(/service_unavailable/);
  });

  it('stamps later lines with the user once the request is authenticated', async () => {
    const { sink, endpoint } = setup();
    const handler = endpoint({ route: 'v1/things' }, async ({ setUserId, log }: RequestScope<undefined>) => {
      log.info('before auth');
      setUserId('user-42');
      expect(currentLogContext().userId).toBe('user-42');
      return { status: 204 };
    });
    await handler(request({ method: 'GET' }), context());
    expect(sink.lines.map((line) => line.userId)).toEqual([null, 'user-42']);
    expect(sink.lines.every((line) => line.requestId === sink.lines[0]?.requestId)).toBe(true);
  });
});

describe('authenticated endpoints', () => {
  const caller = {
    user: { id: 'user-9', accountType: 'adult', role: 'member', status: 'active' },
    session: { id: 'session-9' },
  } as unknown as AuthenticatedCaller;

  function setupWithAuth(valid: boolean) {
    const sink = new LogSink();
    const { telemetry } = recordingTelemetry();
    const seen: (string | null)[] = [];
    const endpoint = createHttpPipeline({
      logger: createLogger({ service: 'api', level: 'info', destination: sink }),
      telemetry,
      authenticate: async (authorization) => {
        seen.push(authorization);
        return valid ? { ok: true, ...caller } : { ok: false, problem: problem('unauthenticated') };
      },
    });
    return { sink, seen, endpoint };
  }

  it('checks the session before the body: an anonymous request with a bad body gets 401, not 400 or 413', async () => {
    const { endpoint } = setupWithAuth(false);
    let called = false;
    const handler = endpoint({ route: 'v1/things', body: thingSchema, authenticated: true }, async () => {
      called = true;
      return { status: 200 };
    });
    for (const body of ['{"name":', JSON.stringify({ name: 'x'.repeat(20_000) })]) {
      const response = await handler(request({ body }), context());
      expect(response.status).toBe(401);
      expect(headerOf(response, 'WWW-Authenticate')).toBe('Bearer error="invalid_token"');
    }
    expect(called).toBe(false);
  });

  it('gives the handler the caller and stamps the request lines with the user', async () => {
    const { sink, seen, endpoint } = setupWithAuth(true);
    const handler = endpoint({ route: 'v1/things', body: thingSchema, authenticated: true }, async ({ caller: who, body }) => ({
      status: 200,
      jsonBody: { user: who.user.id, name: body.name },
    }));
    const response = await handler(request({ body: '{"name":"a"}', headers: { 'content-type': 'application/json', authorization: 'Bearer t' } }), context());
    expect(jsonOf(response)).toEqual({ user: 'user-9', name: 'a' });
    expect(seen).toEqual(['Bearer t']);
    expect(sink.lines[0]).toMatchObject({ message: 'request handled', userId: 'user-9' });
  });
});

describe('createHttpPipeline while the process shuts down', () => {
  function shuttingDownSetup(graceMs = 30_000) {
    const sink = new LogSink();
    const { telemetry, exceptions } = recordingTelemetry();
    const shutdown = createShutdown({ graceMs });
    const endpoint = createHttpPipeline({ logger: createLogger({ service: 'api', level: 'info', destination: sink }), telemetry, shutdown });
    return { sink, exceptions, shutdown, endpoint };
  }

  it('serves a request that arrives after termination began but before the database closes, tracked', async () => {
    const { sink, shutdown, endpoint } = shuttingDownSetup();
    let release: () => void = () => undefined;
    const handler = endpoint({ route: 'v1/things' }, async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return { status: 200, jsonBody: { served: true } };
    });
    shutdown.begin('SIGTERM');
    expect(shutdown.stopping.aborted).toBe(true);
    const answer = handler(request({ method: 'GET' }), context());
    // The stop waits for it like for any request in flight.
    expect(await shutdown.drained(50)).toBe(false);
    release();
    const response = await answer;
    expect(response.status).toBe(200);
    expect(jsonOf(response)).toEqual({ served: true });
    expect(await shutdown.drained(1_000)).toBe(true);
    expect(sink.withMessage('request handled')[0]).toMatchObject({ level: 'info', statusCode: 200 });
  });

  it('answers a request that arrives once the database is closing with 503 problem+json and Retry-After, without running the handler', async () => {
    const { sink, exceptions, shutdown, endpoint } = shuttingDownSetup();
    let ran = false;
    const handler = endpoint({ route: 'v1/things' }, async () => {
      ran = true;
      return { status: 200, jsonBody: {} };
    });
    shutdown.begin('SIGTERM');
    expect(await shutdown.drained(1_000)).toBe(true);
    shutdown.closeDown();
    const response = await handler(request({ method: 'GET' }), context());
    expect(ran).toBe(false);
    expect(response.status).toBe(503);
    expect(headerOf(response, 'Content-Type')).toBe('application/problem+json');
    expect(headerOf(response, 'Retry-After')).toBe('5');
    expect(jsonOf(response)).toMatchObject({ status: 503, code: 'service_unavailable', detail: expect.stringContaining('shutting down') });
    // Expected on every deploy: a warning, no error line, no exception.
    expect(sink.withMessage('request handled')[0]).toMatchObject({ level: 'warn', statusCode: 503, errorCode: 'service_unavailable' });
    expect(exceptions).toHaveLength(0);
  });

  it('counts a request in flight as work the stop waits for, and answers it normally', async () => {
    const { shutdown, endpoint } = shuttingDownSetup();
    let release: () => void = () => undefined;
    const handler = endpoint({ route: 'v1/things' }, async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return { status: 200, jsonBody: { done: true } };
    });
    const answer = handler(request({ method: 'GET' }), context());
    shutdown.begin('SIGTERM');
    expect(await shutdown.drained(50)).toBe(false);
    release();
    expect(await shutdown.drained(1_000)).toBe(true);
    const response = await answer;
    expect(response.status).toBe(200);
    expect(jsonOf(response)).toEqual({ done: true });
  });

  it('answers 503 at the shutdown deadline for a request still running, which the stop still waits for', async () => {
    // A 300 ms grace: deadline at 200 ms.
    const { shutdown, endpoint } = shuttingDownSetup(300);
    let release: () => void = () => undefined;
    const handler = endpoint({ route: 'v1/things' }, async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return { status: 200, jsonBody: { done: true } };
    });
    const answer = handler(request({ method: 'GET' }), context());
    const started = Date.now();
    shutdown.begin('SIGTERM');
    const response = await answer;
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(response.status).toBe(503);
    // The handler may still commit: the client must not read the 503 as "nothing happened".
    expect(jsonOf(response)).toMatchObject({ code: 'service_unavailable', detail: expect.stringContaining('outcome is unknown') });
    expect(await shutdown.drained(10)).toBe(false);
    release();
    expect(await shutdown.drained(1_000)).toBe(true);
  });

  it('refuses a request that arrives after the deadline, before the database closes, without running the handler', async () => {
    // A 300 ms grace: deadline at 200 ms, drain at 250 ms.
    const { sink, exceptions, shutdown, endpoint } = shuttingDownSetup(300);
    let ran = false;
    const handler = endpoint({ route: 'v1/things' }, async () => {
      ran = true;
      return { status: 200, jsonBody: {} };
    });
    shutdown.begin('SIGTERM');
    await new Promise<void>((resolve) => shutdown.deadline.addEventListener('abort', () => resolve(), { once: true }));
    expect(shutdown.closing.aborted).toBe(false);
    const response = await handler(request({ method: 'GET' }), context());
    expect(ran).toBe(false);
    expect(response.status).toBe(503);
    expect(headerOf(response, 'Retry-After')).toBe('5');
    expect(jsonOf(response)).toMatchObject({ code: 'service_unavailable', detail: expect.stringContaining('try again') });
    expect(sink.withMessage('request handled')[0]).toMatchObject({ level: 'warn', statusCode: 503 });
    expect(exceptions).toHaveLength(0);
  });
});
