import type { ServerResponse } from 'node:http';
import { HttpResponse, type Cookie, type HttpResponseInit } from '@azure/functions';
import { ERROR_CATALOGUE, type ErrorCode } from '../shared/errors/error-catalogue';
import { problemBody } from '../shared/errors/problem';

/**
 * Turns what an HTTP handler returned into the library's `HttpResponse`, as the worker does
 * before handing it to the host. Throws for a result that is not an object, like the library.
 */
export function toHttpResponse(result: unknown): HttpResponse {
  if (result === undefined || result === null) return new HttpResponse();
  if (typeof result !== 'object') {
    throw new TypeError('The HTTP response must be an object with optional properties "body", "status", "headers", and "cookies".');
  }
  return isHttpResponse(result) ? result : new HttpResponse(result as HttpResponseInit);
}

/** Duck-typed too, so a response built by another copy of `@azure/functions` still counts as one. */
function isHttpResponse(value: object): value is HttpResponse {
  if (value instanceof HttpResponse) return true;
  const candidate = value as Partial<HttpResponse>;
  return typeof candidate.arrayBuffer === 'function' && candidate.headers instanceof Headers && typeof candidate.status === 'number';
}

/** Writes status, headers (with every `Set-Cookie`), cookies and body. */
export async function writeHttpResponse(res: ServerResponse, response: HttpResponse): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of response.headers) {
    if (name !== 'set-cookie') headers[name] = value;
  }
  const cookies = [...response.headers.getSetCookie(), ...(response.cookies ?? []).map(serializeCookie)];
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  res.writeHead(response.status, headers);
  res.end(body);
}

/** A `Set-Cookie` value for one cookie of `HttpResponseInit.cookies` (name and value URL-encoded). */
export function serializeCookie(cookie: Cookie): string {
  const parts = [`${encodeURIComponent(cookie.name)}=${encodeURIComponent(cookie.value)}`];
  if (cookie.domain) parts.push(`Domain=${cookie.domain}`);
  if (cookie.path) parts.push(`Path=${cookie.path}`);
  if (cookie.expires !== undefined) parts.push(`Expires=${new Date(cookie.expires).toUTCString()}`);
  if (cookie.maxAge !== undefined) parts.push(`Max-Age=${Math.trunc(cookie.maxAge)}`);
  if (cookie.secure) parts.push('Secure');
  if (cookie.httpOnly) parts.push('HttpOnly');
  if (cookie.sameSite) parts.push(`SameSite=${cookie.sameSite}`);
  return parts.join('; ');
}

/** An answer the host gives itself: a catalogue code, and a detail when the catalogue's is too vague. */
export interface HostProblem {
  code: ErrorCode;
  detail?: string;
}

export const HOST_PROBLEMS = {
  notFound: { code: 'not_found', detail: 'No function serves this path and method.' },
  badRequest: { code: 'invalid_request', detail: 'The request could not be read.' },
  payloadTooLarge: { code: 'payload_too_large' },
  methodNotAllowed: { code: 'method_not_allowed' },
  internalError: { code: 'internal_error' },
} as const satisfies Record<string, HostProblem>;

const PROBLEM_HEADERS = {
  'content-type': 'application/problem+json',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

/**
 * An answer the host itself gives (no function ran, or one failed): problem+json with the same
 * body the app's pipeline writes (`problemBody`, every member of the contract's problem), never
 * echoing input.
 */
export function writeProblem(
  res: ServerResponse,
  problem: HostProblem,
  ids: { traceId: string; requestId: string },
  extraHeaders: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = problemBody(problem, ids.traceId);
  const text = JSON.stringify(body);
  res.writeHead(body.status, { ...PROBLEM_HEADERS, 'content-length': String(Buffer.byteLength(text)), 'x-request-id': ids.requestId, ...extraHeaders });
  res.end(text);
}

/**
 * The raw HTTP/1.1 bytes of a problem answer for a socket that has no `ServerResponse` to write
 * with (Node's HTTP layer refused the request before or while parsing it); the connection closes.
 */
export function rawProblemResponse(problem: HostProblem, ids: { traceId: string; requestId: string }): string {
  const body = JSON.stringify(problemBody(problem, ids.traceId));
  const { title } = ERROR_CATALOGUE[problem.code];
  const headers = { ...PROBLEM_HEADERS, 'x-request-id': ids.requestId, 'content-length': String(Buffer.byteLength(body)), connection: 'close' };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${ERROR_CATALOGUE[problem.code].status} ${title}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}
