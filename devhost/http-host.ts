import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { HttpRequest, type TraceContext } from '@azure/functions';
import { MAX_BODY_BYTES } from '../shared/http/read-json-body';
import { errorFields, type Logger } from '../shared/logging/logger';
import { HOST_PROBLEMS, rawProblemResponse, toHttpResponse, writeHttpResponse, writeProblem, type HostProblem } from './http-response';
import { createInvocationContext, type HookRunner } from './invocation';
import { invocationTraceContext, traceIdOf } from './invocation-trace';
import { findRoute, type HttpRoute } from './route-table';

/**
 * The most a function route's request body may hold: the app's own limit (contract section 1).
 * The real host buffers far larger bodies and the app answers 413 after reading them; here a body
 * over the limit is refused before it is read (announced) or as soon as it passes the limit
 * (chunked), so a hostile client costs at most 16 KiB of memory per request.
 */
export const MAX_REQUEST_BODY_BYTES = MAX_BODY_BYTES;

/** The host's own endpoints (the Event Grid webhook) take what Event Grid sends: events up to 1 MB. */
export const MAX_HOST_ENDPOINT_BODY_BYTES = 1024 * 1024;

/**
 * How long a client has to send a whole request, headers and body (Node's `requestTimeout`, and
 * `headersTimeout`); a request still arriving then is answered 408 and its connection closed. The
 * same 10 s the app gives itself to answer one (`HTTP_REQUEST_BUDGET_MS`).
 */
export const REQUEST_TIMEOUT_MS = 10_000;

/** What the HTTP host hands an endpoint of its own for one request. */
export interface HostRequest {
  url: URL;
  /** For problem answers and the host's log lines about this request. */
  ids: { traceId: string; requestId: string };
  /** The request's trace context (the caller's trace when its `traceparent` is valid). */
  traceContext: TraceContext;
  maxBodyBytes: number;
}

/**
 * A path the host serves itself rather than through a function route (the real host's
 * `runtime/webhooks/{extension}` endpoints). Endpoints are tried before the function routes.
 */
export interface HostEndpoint {
  matches(pathname: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse, request: HostRequest): Promise<void>;
}

export interface HttpHostOptions {
  routes: readonly HttpRoute[];
  /** Served before the function routes: their paths sit outside the route prefix, as in the real host. */
  endpoints?: readonly HostEndpoint[];
  hooks: HookRunner;
  logger: Logger;
  /** 0 picks a free port; the bound one is returned. */
  port: number;
  /** Loopback by default: a development host has no business on the network. */
  hostname?: string;
  /** A function route's body limit (default `MAX_REQUEST_BODY_BYTES`). */
  maxBodyBytes?: number;
  /** Default `REQUEST_TIMEOUT_MS`; tests shorten it. */
  requestTimeoutMs?: number;
}

export interface HttpHost {
  port: number;
  /** Stops accepting connections and waits (bounded) for requests in flight. */
  close(): Promise<void>;
}

/** Serves every HTTP-triggered function on one port, the way the Functions host routes them. */
export async function startHttpHost(options: HttpHostOptions): Promise<HttpHost> {
  const hostname = options.hostname ?? '127.0.0.1';
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const server = createServer(
    {
      maxHeaderSize: 32 * 1024,
      requestTimeout,
      headersTimeout: requestTimeout,
      // Node checks the two timeouts on this interval (30 s by default), so it bounds how late the 408 comes.
      connectionsCheckingInterval: Math.min(1_000, Math.max(100, Math.floor(requestTimeout / 4))),
    },
    (req, res) => {
      handleRequest(req, res, options).catch((error: unknown) => {
        options.logger.error({ errorCode: 'internal_error', ...errorFields(error) }, 'local host failed to answer a request');
        if (!res.headersSent) writeProblem(res, HOST_PROBLEMS.internalError, { traceId: newTraceId(), requestId: randomUUID() });
        else res.destroy();
      });
    },
  );
  answerClientErrors(server, options.logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, hostname, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), 10_000);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

async function handleRequest(req: IncomingMessage, res: ServerResponse, options: HttpHostOptions): Promise<void> {
  // A client that hangs up mid-request is routine; it must never become an unhandled 'error' event.
  req.on('error', () => undefined);
  const requestId = randomUUID();
  const traceContext = invocationTraceContext(header(req, 'traceparent'), header(req, 'tracestate'));
  const ids = { traceId: traceIdOf(traceContext), requestId };
  const method = (req.method ?? 'GET').toUpperCase();
  const url = requestUrl(req);
  if (!url) return writeProblem(res, HOST_PROBLEMS.badRequest, ids);

  const endpoint = options.endpoints?.find((candidate) => candidate.matches(url.pathname));
  if (endpoint) return endpoint.handle(req, res, { url, ids, traceContext, maxBodyBytes: MAX_HOST_ENDPOINT_BODY_BYTES });

  const match = findRoute(options.routes, method, url.pathname);
  if (!match) return writeProblem(res, HOST_PROBLEMS.notFound, ids);

  // Every body is counted, whether the function gets it or not: one announced over the limit gets
  // 413 before a byte is read, a chunked one as soon as it passes the limit. Then, as the real host
  // does, only a body with a Content-Length above 0 is handed on; a chunked one is dropped.
  const read = await readCappedBody(req, options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES);
  if (read === 'aborted') return;
  if (read === 'too_large') return writeProblem(res, HOST_PROBLEMS.payloadTooLarge, ids, { connection: 'close' });
  const body = method === 'GET' || method === 'HEAD' || !hasContentLength(req) ? Buffer.alloc(0) : read;

  const { registration } = match.route;
  let request: HttpRequest;
  try {
    request = new HttpRequest({
      method,
      url: url.toString(),
      body: body.length > 0 ? { bytes: body } : undefined,
      headers: flatHeaders(req),
      query: hostQuery(url),
      params: match.params,
    });
  } catch {
    // The fetch `Request` refuses some methods and header values the socket accepted.
    return writeProblem(res, HOST_PROBLEMS.badRequest, ids);
  }
  const context = createInvocationContext({ registration, invocationId: requestId, traceContext, logger: options.logger });
  try {
    const result = await options.hooks.invoke(registration.handler, context, [request]);
    await writeHttpResponse(res, toHttpResponse(result));
  } catch (error) {
    options.logger.error(
      { functionName: registration.metadata.name, invocationId: requestId, traceId: ids.traceId, errorCode: 'internal_error', ...errorFields(error) },
      'function failed',
    );
    writeProblem(res, HOST_PROBLEMS.internalError, ids);
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Header values as the host passes them (`ToRpcHttp`: each header's `StringValues.ToString()`): the
 * values of a repeated header joined with ",", names lower-cased.
 */
export function flatHeaders(req: Pick<IncomingMessage, 'headersDistinct'>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (values !== undefined) headers[name] = values.join(',');
  }
  return headers;
}

/**
 * The query as the host passes it (`ToRpcHttp` copies ASP.NET Core's `Request.Query`): keys
 * compared case-insensitively, the first spelling kept, the values of a repeated key joined with
 * "," (`?limit=5&limit=7` → `limit: "5,7"`), so `request.query` sees what it sees in Azure. The URL
 * keeps the raw query string, as the host's `RpcHttp.Url` does.
 */
export function hostQuery(url: URL): Record<string, string> {
  const values = new Map<string, { key: string; values: string[] }>();
  for (const [key, value] of url.searchParams) {
    const entry = values.get(key.toLowerCase());
    if (entry) entry.values.push(value);
    else values.set(key.toLowerCase(), { key, values: [value] });
  }
  return Object.fromEntries([...values.values()].map((entry) => [entry.key, entry.values.join(',')]));
}

/**
 * The host copies a request body only when `Content-Length` is above 0 (`ToRpcHttp`:
 * `request.Body != null && request.ContentLength > 0`): a chunked body never reaches the function
 * (here it is read up to the limit first, and one over it gets 413).
 */
function hasContentLength(req: IncomingMessage): boolean {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > 0;
}

/** Node's reasons for refusing a request before the host sees it, and the problem each is answered with. */
const CLIENT_ERROR_PROBLEMS: Readonly<Record<string, HostProblem>> = {
  HPE_HEADER_OVERFLOW: { code: 'headers_too_large', detail: 'The request line and headers are over 32 KiB.' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: HOST_PROBLEMS.payloadTooLarge,
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request_timeout' },
};
const MALFORMED_REQUEST: HostProblem = { code: 'invalid_request', detail: 'The request is not valid HTTP/1.1: its framing or headers could not be read.' };

/**
 * What Node's HTTP layer refuses (a header section over `maxHeaderSize`, malformed framing such as
 * a short or conflicting `Content-Length`, a request not received within the timeout) gets a
 * problem+json answer with `X-Request-Id` instead of Node's bare one, by Node's own rule for when
 * the socket still allows an answer: it is writable, and no answer to a request on it has begun.
 * The connection is closed either way. Node's error carries the raw bytes it refused; they are
 * never logged.
 */
function answerClientErrors(server: Server, logger: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const code = typeof error.code === 'string' ? error.code : '';
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
      const problem = CLIENT_ERROR_PROBLEMS[code] ?? MALFORMED_REQUEST;
      const ids = { traceId: newTraceId(), requestId: randomUUID() };
      // As Node writes its own answer: at once, then the socket ends (the peer may still be sending).
      socket.write(rawProblemResponse(problem, ids));
      logger.info({ requestId: ids.requestId, errorCode: problem.code, reason: /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : 'unknown' }, 'request refused by the HTTP layer');
    }
    socket.destroy();
  });
}

/** A trace id for an answer no invocation was made for. */
function newTraceId(): string {
  return randomBytes(16).toString('hex');
}

/** The absolute URL of the request; a `//host`-looking path stays a path. */
function requestUrl(req: IncomingMessage): URL | undefined {
  const target = req.url ?? '/';
  const hostHeader = header(req, 'host');
  const socketAddress = req.socket.localAddress ?? '127.0.0.1';
  const host = hostHeader && /^[a-z0-9.\-[\]:]+$/i.test(hostHeader) ? hostHeader : `${socketAddress}:${req.socket.localPort ?? 80}`;
  try {
    return target.startsWith('/') ? new URL(`http://${host}${target}`) : new URL(target);
  } catch {
    return undefined;
  }
}

/** Reads the body without ever holding more than `limit` bytes (shared with the host's own endpoints). */
export function readCappedBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large' | 'aborted'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve('too_large');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const finish = (result: Buffer | 'too_large' | 'aborted'): void => {
      req.off('data', onData).off('end', onEnd).off('error', onAborted).off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > limit) {
        req.pause();
        finish('too_large');
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = (): void => finish(Buffer.concat(chunks, total));
    const onAborted = (): void => finish('aborted');
    const onClose = (): void => {
      if (!req.complete) finish('aborted');
    };
    req.on('data', onData).on('end', onEnd).on('error', onAborted).on('close', onClose);
  });
}
