/**
 * CORS for a browser app (a web admin console) on another origin: off unless
 * `CORS_ALLOWED_ORIGINS` lists origins. Only listed origins get `Access-Control-Allow-Origin`
 * (their own, never `*`); credentials are bearer tokens the page sends itself, so no cookies and
 * no `Access-Control-Allow-Credentials`. The platform's own CORS (App Service, Container Apps)
 * stays off, or both would answer.
 */

/** The request headers a page may send: the session token, the JSON body's type, trace context. */
const ALLOWED_REQUEST_HEADERS = 'Authorization, Content-Type, traceparent';
/** The answer headers a page may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS = 'Retry-After, X-Request-Id, Location';
/** How long a browser may keep a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * Headers for an ordinary answer: the allowed origin echoed (with `Vary: Origin`, since the
 * answer depends on it); nothing at all when CORS is off, so the default answers are unchanged.
 */
export function corsHeaders(origin: string | null, allowedOrigins: readonly string[]): Record<string, string> {
  if (allowedOrigins.length === 0) return {};
  if (origin === null || !allowedOrigins.includes(origin)) return { Vary: 'Origin' };
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS, Vary: 'Origin' };
}

/** A preflight: `OPTIONS` with `Origin` and `Access-Control-Request-Method`. */
export function isPreflight(method: string, headers: { get(name: string): string | null }): boolean {
  return method === 'OPTIONS' && headers.get('origin') !== null && headers.get('access-control-request-method') !== null;
}

/**
 * The headers of a preflight's 204 from an allowed origin: the route's methods and the request
 * headers the API reads. A method outside them is left for the browser to refuse. Undefined when
 * the origin is not allowed (the caller answers 403).
 */
export function preflightHeaders(
  origin: string | null,
  allowedOrigins: readonly string[],
  methods: readonly string[],
): Record<string, string> | undefined {
  if (origin === null || !allowedOrigins.includes(origin)) return undefined;
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': methods.join(', '),
    'Access-Control-Allow-Headers': ALLOWED_REQUEST_HEADERS,
    'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
    Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  };
}
