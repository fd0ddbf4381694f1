import type { AuditDetails } from '../audit/audit-event';
import { writeAudit } from '../audit/write-audit';
import type { SqlExecutor } from '../db/database';
import { identifyUser } from '../logging/log-context';
import { UNKNOWN_CLIENT, type ClientLabel } from '../sessions/client-label';
import { startSession, type StartedSession } from '../sessions/start-session';
import type { User } from '../users/user';
import type { AuthDeps } from './auth-deps';

/**
 * The end of every successful sign-in: a new session and its `authn_login_success` row, in the
 * caller's transaction (both commit or neither does).
 * @param clientLabel the signing-in client's coarse label, kept with the session.
 */
export async function startSignedInSession(
  tx: SqlExecutor,
  user: User,
  deps: AuthDeps,
  details: AuditDetails,
  clientLabel: ClientLabel = UNKNOWN_CLIENT,
): Promise<StartedSession> {
  const started = await startSession(tx, user, deps.clock.now(), { random: deps.random, policy: deps.sessionPolicy }, clientLabel);
  await writeAudit(
    tx,
    {
      eventType: 'authn_login_success',
      outcome: 'success',
      actorUserId: user.id,
      subjectUserId: user.id,
      targetType: 'session',
      targetId: started.session.id,
      details: { accountType: user.accountType, ...details },
    },
    deps,
  );
  return started;
}

/** The log line and `auth.success` event of a committed sign-in. */
export function reportSignIn(deps: AuthDeps, user: User, fields: Record<string, string | boolean> = {}): void {
  identifyUser(user.id);
  deps.logger.info({ accountType: user.accountType, ...fields }, 'sign-in succeeded');
  deps.telemetry.trackEvent('auth.success', { accountType: user.accountType });
}
