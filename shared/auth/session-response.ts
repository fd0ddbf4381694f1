import type { StartedSession } from '../sessions/start-session';
import type { Section, User } from '../users/user';

/**
 * The 200 body of both sign-in endpoints (contract section 4). `expiresAt` is the absolute expiry;
 * a session unused for its idle lifetime ends earlier.
 */
export function sessionResponseBody(user: User, started: StartedSession, scopes?: readonly Section[]) {
  return {
    token: started.token,
    tokenType: 'Bearer' as const,
    expiresAt: started.session.absoluteExpiresAt,
    user: {
      id: user.id,
      role: user.role,
      status: user.status,
      accountType: user.accountType,
      ...(scopes ? { scopes: [...scopes] } : {}),
    },
  };
}
