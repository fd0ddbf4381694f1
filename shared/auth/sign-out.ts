import { writeAudit } from '../audit/write-audit';
import type { Session } from '../sessions/session';
import { endSession } from '../sessions/session-store';
import { sessionDurationSeconds } from '../sessions/start-session';
import type { AuthDeps } from './auth-deps';

/**
 * DELETE /api/v1/auth/session: revokes the presented session and audits `session_logout` with
 * how long it lasted, in one transaction. Signing out twice at once writes one row.
 */
export async function signOut(session: Session, deps: AuthDeps): Promise<void> {
  const db = await deps.database.get();
  const now = deps.clock.now();
  const durationSeconds = sessionDurationSeconds(session, now);
  const ended = await db.transaction(async (tx) => {
    if (!(await endSession(tx, session.id, 'logout', now.toISOString()))) return false;
    await writeAudit(
      tx,
      {
        eventType: 'session_logout',
        outcome: 'success',
        actorUserId: session.userId,
        subjectUserId: session.userId,
        targetType: 'session',
        targetId: session.id,
        details: { durationSeconds, accountType: session.accountType },
      },
      deps,
    );
    return true;
  });
  if (ended) deps.logger.info({ accountType: session.accountType, durationSeconds }, 'signed out');
}
