/**
 * The audit log's vocabulary (contract section 7, OWASP logging names). One row per
 * security-relevant event; `details` carries the event's extra facts, never secrets or personal data.
 */

export const AUDIT_EVENT_TYPES = [
  'authn_login_success',
  'authn_login_fail',
  'authn_login_lock',
  'session_logout',
  'session_expired',
  'authn_token_revoked',
  'authz_change',
  'user_approved',
  'child_created',
  'child_updated',
  'authz_fail',
  'announcement_draft_created',
  'announcement_submitted',
  'announcement_approved',
  'announcement_rejected',
  'announcement_published',
  // A parent's consent for a child account (`shared/family/record-consent.ts`): given with each
  // new set of sections, withdrawn for sections taken away or, with erasure, for all of them.
  'consent_given',
  'consent_withdrawn',
  // An account's personal data removed, its Users row kept as a tombstone (`shared/users/account-erasure.ts`).
  'account_erased',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

export const AUDIT_OUTCOMES = ['success', 'failure'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** Why a sign-in failed (`authn_login_fail`). */
export const LOGIN_FAILURE_REASONS = [
  'invalid_token',
  'user_not_found',
  'bad_credentials',
  'pending_approval',
  'disabled',
  'locked',
  'throttled',
] as const;
export type LoginFailureReason = (typeof LOGIN_FAILURE_REASONS)[number];

/** Which lifetime ran out (`session_expired`). */
export const SESSION_EXPIRY_REASONS = ['idle', 'absolute'] as const;
export type SessionExpiryReason = (typeof SESSION_EXPIRY_REASONS)[number];

/**
 * Why sessions were revoked other than by signing out (`authn_token_revoked`, contract section 5):
 * by the system on a change of the account, or by a person through `/me/sessions` (one session,
 * or all of them but perhaps the current one) and a parent through `/children/{id}/sessions`.
 */
export const TOKEN_REVOCATION_REASONS = [
  'role_changed',
  'account_disabled',
  'secret_changed',
  'user_revoked',
  'user_revoked_all',
  'parent_revoked',
] as const;
export type TokenRevocationReason = (typeof TOKEN_REVOCATION_REASONS)[number];

/** Every value the `reason` column may hold. */
export const AUDIT_REASONS = [...LOGIN_FAILURE_REASONS, ...SESSION_EXPIRY_REASONS, ...TOKEN_REVOCATION_REASONS] as const;
export type AuditReason = (typeof AUDIT_REASONS)[number];

/** A value of `details`: flat, short, and never a secret. */
export type AuditDetailValue = string | number | boolean | null;
export type AuditDetails = Readonly<Record<string, AuditDetailValue>>;

/** What a caller records; the writer adds `id` and `occurredAt`. */
export interface AuditEntry {
  eventType: AuditEventType;
  outcome: AuditOutcome;
  /** Who acted: the signed-in user, or null for an anonymous attempt or the system. */
  actorUserId?: string | null;
  /** Whose account the event is about (the child for a parent's change, the user who signed in). */
  subjectUserId?: string | null;
  /** What was acted on besides a user, e.g. `announcement`, `session`. */
  targetType?: string | null;
  targetId?: string | null;
  reason?: AuditReason | null;
  /** Defaults to the trace id of the running request chain. */
  traceId?: string | null;
  details?: AuditDetails | null;
}

/** A stored audit row. */
export interface AuditEvent {
  id: string;
  /** ISO 8601 UTC. */
  occurredAt: string;
  eventType: AuditEventType;
  outcome: AuditOutcome;
  actorUserId: string | null;
  subjectUserId: string | null;
  targetType: string | null;
  targetId: string | null;
  reason: AuditReason | null;
  traceId: string | null;
  details: AuditDetails | null;
}
