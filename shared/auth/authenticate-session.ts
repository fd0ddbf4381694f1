import { problem, type Problem } from '../errors/problem';
import type { Session } from '../sessions/session';
import { expireSession } from '../sessions/expire-session';
import { touchSession } from '../sessions/session-store';
import { parseSessionToken, sessionSecretMatches } from '../sessions/session-token';
import { findSessionWithUser } from '../sessions/session-with-user-store';
import type { Section, User } from '../users/user';
import type { AuthDeps } from './auth-deps';

/** The contract's cap: longer `Authorization` headers are refused before any crypto or database work. */
export const MAX_AUTHORIZATION_HEADER_BYTES = 4096;

/** On success, `scopes` holds a child's sections as read with the session (undefined for an adult). */
export type SessionAuthentication =
  | { ok: true; user: User; session: Session; scopes: Section[] | undefined }
  | { ok: false; problem: Problem };

// The scheme is case-insensitive and followed by one or more spaces (RFC 9110 §11.1, §11.4); the token68 is not.
const BEARER = /^[Bb][Ee][Aa][Rr][Ee][Rr] +([A-Za-z0-9._~+/-]+=*)$/;

const unauthenticated = (): SessionAuthentication => ({ ok: false, problem: problem('unauthenticated') });

/**
 * Checks `Authorization: Bearer <session token>` (contract sections 1 and 5). Every failure gives
 * the same 401 `unauthenticated`. A session found past its idle or absolute expiry is ended and
 * audited as `session_expired`; `lastUsedAt` is written at most once per touch interval.
 * The session, its user and a child's scopes come from one joined read: in the common case (no
 * expiry, no touch due) that read is the request's only round trip for authentication.
 */
export async function authenticateSession(authorization: string | null, deps: AuthDeps): Promise<SessionAuthentication> {
  if (!authorization || Buffer.byteLength(authorization, 'utf8') > MAX_AUTHORIZATION_HEADER_BYTES) return unauthenticated();
  const token = BEARER.exec(authorization)?.[1];
  const parsed = token ? parseSessionToken(token) : undefined;
  if (!parsed) return unauthenticated();

  const db = await deps.database.get();
  const found = await findSessionWithUser(db, parsed.id);
  if (!found) return unauthenticated();
  const { session, user, scopes } = found;
  if (!sessionSecretMatches(session.secretHash, parsed.secret) || session.endedAt !== null) return unauthenticated();
  const now = deps.clock.now();
  const expiry = expiryReason(session, now);
  if (expiry) {
    await db.transaction((tx) => expireSession(tx, session, expiry, now, deps));
    deps.logger.info({ reason: expiry, accountType: session.accountType }, 'session expired');
    return unauthenticated();
  }
  // After the expiry check: an expired session is ended and audited whatever its user's status.
  if (user.status !== 'active') return unauthenticated();

  // The only write of a live session, and at most once per interval, so most requests write nothing.
  if (now.getTime() - Date.parse(session.lastUsedAt) >= deps.sessionPolicy.touchIntervalMs) {
    const lifetimes = deps.sessionPolicy[session.accountType];
    const idleExpiresAt = new Date(Math.min(now.getTime() + lifetimes.idleMs, Date.parse(session.absoluteExpiresAt)));
    await touchSession(db, session.id, now.toISOString(), idleExpiresAt.toISOString());
  }
  return { ok: true, user, session, scopes };
}

function expiryReason(session: Session, now: Date): 'idle' | 'absolute' | undefined {
  if (now.getTime() >= Date.parse(session.absoluteExpiresAt)) return 'absolute';
  if (now.getTime() >= Date.parse(session.idleExpiresAt)) return 'idle';
  return undefined;
}
