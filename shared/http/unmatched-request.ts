import type { HttpRequest } from '@azure/functions';
import { problem, type Problem } from '../errors/problem';
import { isPreflight, preflightHeaders } from './cors';
import type { HttpSuccess } from './http-pipeline';
import { ROUTE_PREFIX } from './http-pipeline';
import { allowedMethods, allowHeader, type CataloguedRoute } from './route-catalogue';

/**
 * The answer to a request no function took: 404 for an unknown path; for a known one (its
 * function refused the method), 405 `method_not_allowed` with `Allow`, or for `OPTIONS` 204 with
 * `Allow`, and for a CORS preflight the answer `CORS_ALLOWED_ORIGINS` dictates (403 for an origin
 * not on the list). The detail names the allowed methods, never the submitted path.
 */
export function answerUnmatched(
  request: HttpRequest,
  corsAllowedOrigins: readonly string[],
  routes: readonly CataloguedRoute[],
): HttpSuccess | Problem {
  const pathname = new URL(request.url).pathname;
  const prefix = `/${ROUTE_PREFIX}/`;
  const methods = pathname.toLowerCase().startsWith(prefix) ? allowedMethods(routes, pathname.slice(prefix.length)) : undefined;
  if (!methods) return noSuchEndpoint();
  const allow = allowHeader(methods);
  const method = request.method.toUpperCase();
  if (isPreflight(method, request.headers)) {
    const headers = preflightHeaders(request.headers.get('origin'), corsAllowedOrigins, methods);
    if (!headers) {
      return problem('forbidden', {
        detail: 'Cross-origin requests from this origin are not allowed (CORS_ALLOWED_ORIGINS).',
        headers: { Vary: 'Origin' },
      });
    }
    return { status: 204, headers: { ...headers, Allow: allow } };
  }
  if (method === 'OPTIONS') return { status: 204, headers: { Allow: allow } };
  return problem('method_not_allowed', { detail: `This endpoint accepts ${methods.join(', ')}.`, headers: { Allow: allow } });
}

/** The 404 of a path no function takes; also what an endpoint switched off by a setting answers, so the two look alike. */
export function noSuchEndpoint(): Problem {
  return problem('not_found', { detail: 'No such endpoint.' });
}
