import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpRequest, type TraceContext } from '@azure/functions';
import { errorFields, type Logger } from '../shared/logging/logger';
import { HOST_PROBLEMS, toHttpResponse, writeHttpResponse, writeProblem } from './http-response';
import { createInvocationContext, type HookRunner } from './invocation';
import { invocationTraceContext, traceIdOf } from './invocation-trace';
import { findRoute, type HttpRoute } from './route-table';

/** The real host takes far larger bodies; 1 MiB keeps a developer machine safe while staying above the app's own limit. */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;

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
  maxBodyBytes?: number;
}

export interface HttpHost {
  port: number;
  /** Stops accepting connections and waits (bounded) for requests in flight. */
  close(): Promise<void>;
}

/** Serves every HTTP-triggered function on one port, the way the Functions host routes them. */
export async function startHttpHost(options: HttpHostOptions): Promise<HttpHost> {
  const hostname = options.hostname ?? '127.0.0.1';
  const server = createServer({ maxHeaderSize: 32 * 1024 }, (req, res) => {
    handleRequest(req, res, options).catch((error: unknown) => {
      options.logger.error({ errorCode: 'internal_error', ...errorFields(error) }, 'local host failed to answer a request');
      if (!res.headersSent) writeProblem(res, HOST_PROBLEMS.internalError, { traceId: '', requestId: randomUUID() });
      else res.destroy();
    });
  });
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
  const maxBodyBytes = options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES;
  if (endpoint) return endpoint.handle(req, res, { url, ids, traceContext, maxBodyBytes });

  const match = findRoute(options.routes, method, url.pathname);
  if (!match) return writeProblem(res, HOST_PROBLEMS.notFound, ids);

  const body = method === 'GET' || method === 'HEAD' || !hasContentLength(req) ? discardBody(req) : await readCappedBody(req, maxBodyBytes);
  if (body === 'aborted') return;
  if (body === 'too_large') return writeProblem(res, HOST_PROBLEMS.payloadTooLarge, ids, { connection: 'close' });

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
 * `request.Body != null && request.ContentLength > 0`): a chunked body, however long, never
 * reaches the function.
 */
function hasContentLength(req: IncomingMessage): boolean {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > 0;
}

/** Reads and drops a body the host does not pass on, so the connection stays usable. */
function discardBody(req: IncomingMessage): Buffer {
  req.resume();
  return Buffer.alloc(0);
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
