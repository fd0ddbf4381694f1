/**
 * The one catalogue of application error codes (API contract, section 2). A code decides the HTTP
 * status and the title; handlers return codes, never raw statuses, so clients and on-call see the
 * same vocabulary.
 */
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, title: 'Invalid request' },
  weak_secret: { status: 400, title: 'Weak PIN or password' },
  invalid_token: { status: 401, title: 'Invalid identity token' },
  invalid_credentials: { status: 401, title: 'Invalid credentials' },
  unauthenticated: { status: 401, title: 'Authentication required' },
  account_pending_approval: { status: 403, title: 'Account pending approval' },
  account_disabled: { status: 403, title: 'Account disabled' },
  forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  username_taken: { status: 409, title: 'Username taken' },
  invalid_transition: { status: 409, title: 'Invalid transition' },
  children_not_erased: { status: 409, title: 'Child accounts not erased' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  too_many_attempts: { status: 429, title: 'Too many attempts' },
  internal_error: { status: 500, title: 'Internal error' },
  idp_unavailable: { status: 503, title: 'Identity provider unavailable' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The HTTP status of an error code. */
export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

/** True for the codes of server-side failures, which are logged at error level with a stack. */
export function isServerError(code: ErrorCode): boolean {
  return statusOf(code) >= 500;
}
