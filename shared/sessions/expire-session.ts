import type { AuditWriterDeps } from '../audit/write-audit';
import { writeAudit } from '../audit/write-audit';
import type { SqlExecutor } from '../db/database';
import type { Session } from './session';
import { endSession } from './session-store';
import { sessionDurationSeconds } from './start-session';

/**
 * Ends a session whose idle or absolute lifetime ran out and writes its `session_expired` row
 * (reason, `durationSeconds`), in the caller's transaction. Resolves false when the session had
 * already ended, so a session presented after expiry and the background sweep never both record it.
 * @param endedAt when the session ended: the moment it was found expired, or its deadline.
 * @param details extra facts for the audit row, e.g. `{ sweep: true }`.
 */
export async function expireSession(
  tx: SqlExecutor,
  session: Session,
  reason: 'idle' | 'absolute',
  endedAt: Date,
  deps: AuditWriterDeps,
  details: Record<string, boolean> = {},
): Promise<boolean> {
  if (!(await endSession(tx, session.id, reason, endedAt.toISOString()))) return false;
  await writeAudit(
    tx,
    {
      eventType: 'session_expired',
      outcome: 'success',
      actorUserId: null,
      subjectUserId: session.userId,
      targetType: 'session',
      targetId: session.id,
      reason,
      details: { durationSeconds: sessionDurationSeconds(session, endedAt), accountType: session.accountType, ...details },
    },
    deps,
  );
  return true;
}
