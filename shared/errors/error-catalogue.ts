/**
 * The one catalogue of application error codes (API contract, section 2). A code decides the HTTP
 * status, the title and the `detail` a problem body carries when the code's user gives none (every
 * body has all six members of the contract's problem); handlers return codes, never raw statuses,
 * so clients and on-call see the same vocabulary. `request_timeout` (408) and `headers_too_large`
 * (431) are the local host's answers to what Node's HTTP layer refuses before any function runs.
 */
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, title: 'Invalid request', detail: 'The request is not valid; the API documentation describes what it takes.' },
  weak_secret: { status: 400, title: 'Weak PIN or password', detail: 'The new PIN or password is too easy to guess.' },
  invalid_token: { status: 401, title: 'Invalid identity token', detail: 'The identity token could not be verified.' },
  invalid_credentials: { status: 401, title: 'Invalid credentials', detail: 'The username or the PIN or password is not right.' },
  unauthenticated: { status: 401, title: 'Authentication required', detail: 'A valid session is required: send Authorization: Bearer <session token>.' },
  account_pending_approval: { status: 403, title: 'Account pending approval', detail: "The account is waiting for an administrator's approval." },
  account_disabled: { status: 403, title: 'Account disabled', detail: 'The account is disabled.' },
  forbidden: { status: 403, title: 'Forbidden', detail: 'The caller may not do this.' },
  not_found: { status: 404, title: 'Not found', detail: 'The resource does not exist or is not visible to the caller.' },
  method_not_allowed: { status: 405, title: 'Method not allowed', detail: 'This endpoint does not take this method; Allow lists the ones it takes.' },
  request_timeout: { status: 408, title: 'Request timeout', detail: 'The request did not arrive in time.' },
  username_taken: { status: 409, title: 'Username taken', detail: 'The username is already in use.' },
  invalid_transition: { status: 409, title: 'Invalid transition', detail: 'The announcement is not in a status this step starts from.' },
  children_not_erased: { status: 409, title: 'Child accounts not erased', detail: 'Erase the child accounts first.' },
  payload_too_large: { status: 413, title: 'Payload too large', detail: 'The request body is over 16 KiB.' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type', detail: 'Send the body as application/json.' },
  too_many_attempts: { status: 429, title: 'Too many attempts', detail: 'Too many attempts; try again after the Retry-After seconds.' },
  headers_too_large: { status: 431, title: 'Request header fields too large', detail: 'The request headers are too large.' },
  internal_error: { status: 500, title: 'Internal error', detail: 'Something unexpected failed; the traceId identifies it in the logs.' },
  idp_unavailable: { status: 503, title: 'Identity provider unavailable', detail: "The identity provider's keys cannot be read now; try again after the Retry-After seconds." },
  service_unavailable: { status: 503, title: 'Service unavailable', detail: 'The service cannot take the request now; try again after the Retry-After seconds.' },
} as const satisfies Record<string, { status: number; title: string; detail: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The HTTP status of an error code. */
export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

/** True for the codes of server-side failures, which are logged at error level with a stack. */
export function isServerError(code: ErrorCode): boolean {
  return statusOf(code) >= 500;
}
