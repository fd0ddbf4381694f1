import type { SqlExecutor } from '../db/database';
import type { Random } from '../ports/random';
import type { User } from '../users/user';
import { UNKNOWN_CLIENT, type ClientLabel } from './client-label';
import type { Session } from './session';
import type { SessionPolicy } from './session-policy';
import { insertSession } from './session-store';
import { generateSessionToken } from './session-token';

export interface StartedSession {
  /** For the client only: never stored, never logged. */
  token: string;
  session: Session;
}

/**
 * Creates a new session for `user` (every sign-in gets its own) inside the caller's transaction.
 * @param now the sign-in time, from the injected clock.
 * @param clientLabel what kind of client signed in, as `clientLabelOf` read its `User-Agent`.
 */
export async function startSession(
  tx: SqlExecutor,
  user: Pick<User, 'id' | 'accountType'>,
  now: Date,
  deps: { random: Random; policy: SessionPolicy },
  clientLabel: ClientLabel = UNKNOWN_CLIENT,
): Promise<StartedSession> {
  const lifetimes = deps.policy[user.accountType];
  const { token, id, secretHash } = generateSessionToken(deps.random);
  const absoluteExpiresAt = new Date(now.getTime() + lifetimes.absoluteMs);
  const idleExpiresAt = new Date(Math.min(now.getTime() + lifetimes.idleMs, absoluteExpiresAt.getTime()));
  const session: Session = {
    id,
    userId: user.id,
    secretHash,
    accountType: user.accountType,
    createdAt: now.toISOString(),
    lastUsedAt: now.toISOString(),
    idleExpiresAt: idleExpiresAt.toISOString(),
    absoluteExpiresAt: absoluteExpiresAt.toISOString(),
    endedAt: null,
    endReason: null,
    clientLabel,
  };
  await insertSession(tx, session);
  return { token, session };
}

/** Whole seconds a session lasted, for `session_logout` and `session_expired` audit rows. */
export function sessionDurationSeconds(session: Pick<Session, 'createdAt'>, endedAt: Date): number {
  return Math.max(0, Math.round((endedAt.getTime() - Date.parse(session.createdAt)) / 1000));
}
