import type { ServerResponse } from 'node:http';
import { HttpResponse, type Cookie, type HttpResponseInit } from '@azure/functions';

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

export interface HostProblem {
  status: number;
  title: string;
  code: string;
}

export const HOST_PROBLEMS = {
  notFound: { status: 404, title: 'Not Found', code: 'not_found' },
  badRequest: { status: 400, title: 'Bad Request', code: 'invalid_request' },
  payloadTooLarge: { status: 413, title: 'Payload too large', code: 'payload_too_large' },
  internalError: { status: 500, title: 'Internal Server Error', code: 'internal_error' },
} as const satisfies Record<string, HostProblem>;

/** An answer the host itself gives (no function ran, or one failed): problem+json, never echoing input. */
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
  const body = JSON.stringify({ type: 'about:blank', title: problem.title, status: problem.status, code: problem.code, traceId: ids.traceId });
  res.writeHead(problem.status, {
    'content-type': 'application/problem+json',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-request-id': ids.requestId,
    ...extraHeaders,
  });
  res.end(body);
}
