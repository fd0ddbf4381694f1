import { writeAudit, type AuditWriterDeps } from '../audit/write-audit';
import type { DatabaseProvider } from '../db/lazy-database';
import type { Logger } from '../logging/logger';
import { endLiveUserSessions, endSession, findLiveUserSessions } from './session-store';
import { publicSessionId, toSessionView, type SessionView } from './session-view';

/**
 * Sessions a person can see and end (`/api/v1/me/sessions`) and a parent can see and end for a
 * child (`/api/v1/children/{id}/sessions`). Every revocation is one `authn_token_revoked` row with
 * its reason, in the transaction that ends the sessions. Ownership is decided by the caller of
 * these functions: they act on the sessions of `userId` only, so a session id of anyone else's is
 * simply not found.
 */

export interface SessionManagementDeps extends AuditWriterDeps {
  database: DatabaseProvider;
  logger: Logger;
}

/**
 * The most live sessions listed, newest first. Each sign-in makes a session and an adult's lives
 * up to 30 days, so a person has a handful; the cap only bounds a pathological account (a script
 * signing in in a loop), whose older sessions still end with `DELETE …/sessions`.
 */
export const MAX_LISTED_SESSIONS = 100;

/** Who ends the sessions: the person themselves, or the parent of the child whose sessions they are. */
export interface SessionRevoker {
  actorUserId: string;
  /** The presented session's row id when the person ends their own; null for a parent. */
  currentRowId: string | null;
}

/**
 * The live sessions of `userId`, newest first (at most `MAX_LISTED_SESSIONS`), with `current`
 * set on the one presented.
 */
export async function listSessions(userId: string, currentRowId: string | null, deps: SessionManagementDeps): Promise<SessionView[]> {
  const db = await deps.database.get();
  const sessions = await findLiveUserSessions(db, userId, deps.clock.now().toISOString(), MAX_LISTED_SESSIONS);
  return sessions.map((session) => toSessionView(session, currentRowId));
}

/**
 * Ends one live session of `userId` by its public id (the ids the list shows). Resolves false when
 * `userId` has no such live session: another user's, an ended or an expired one all answer 404.
 * Ending the presented session is allowed; it then works like signing out.
 */
export async function revokeSession(userId: string, publicId: string, by: SessionRevoker, deps: SessionManagementDeps): Promise<boolean> {
  const db = await deps.database.get();
  const now = deps.clock.now();
  const live = await findLiveUserSessions(db, userId, now.toISOString(), MAX_LISTED_SESSIONS);
  const session = live.find((candidate) => publicSessionId(candidate.id) === publicId);
  if (!session) return false;
  const reason = by.actorUserId === userId ? 'user_revoked' : 'parent_revoked';
  const current = session.id === by.currentRowId;
  // Conditional: a sign-out, sweep or second revocation racing this one writes no second row.
  const ended = await db.transaction(async (tx) => {
    if (!(await endSession(tx, session.id, reason, now.toISOString()))) return false;
    await writeAudit(
      tx,
      {
        eventType: 'authn_token_revoked',
        outcome: 'success',
        actorUserId: by.actorUserId,
        subjectUserId: userId,
        targetType: 'session',
        targetId: session.id,
        reason,
        details: { sessions: 1, accountType: session.accountType, current },
      },
      deps,
    );
    return true;
  });
  if (ended) deps.logger.info({ reason, revokedSessions: 1, current, ...subjectFields(userId, by) }, 'sessions revoked');
  return ended;
}

/**
 * Ends every live session of `userId`, except the presented one unless `includeCurrent`; resolves
 * with how many ended. No row when there was nothing to end.
 */
export async function revokeSessions(
  userId: string,
  by: SessionRevoker,
  includeCurrent: boolean,
  deps: SessionManagementDeps,
): Promise<number> {
  const db = await deps.database.get();
  const now = deps.clock.now().toISOString();
  const own = by.actorUserId === userId;
  const reason = own ? 'user_revoked_all' : 'parent_revoked';
  const keepRowId = includeCurrent ? null : by.currentRowId;
  const revoked = await db.transaction(async (tx) => {
    const count = await endLiveUserSessions(tx, userId, reason, now, keepRowId);
    if (count === 0) return 0;
    await writeAudit(
      tx,
      {
        eventType: 'authn_token_revoked',
        outcome: 'success',
        actorUserId: by.actorUserId,
        subjectUserId: userId,
        reason,
        details: { sessions: count, ...(own ? { includeCurrent } : {}) },
      },
      deps,
    );
    return count;
  });
  deps.logger.info({ reason, revokedSessions: revoked, ...(own ? { includeCurrent } : {}), ...subjectFields(userId, by) }, 'sessions revoked');
  return revoked;
}

/** A parent's revocation names the child by id (the parent is the line's `userId`); ids only. */
function subjectFields(userId: string, by: SessionRevoker): Record<string, string> {
  return by.actorUserId === userId ? {} : { childUserId: userId };
}
