import type { Session } from '../sessions/session';
import type { Section, User } from '../users/user';
import { toUserView } from '../users/user-view';

/** What `GET /api/v1/me` answers from: the caller exactly as the session check loaded it. */
export interface ProfileSource {
  user: User;
  session: Session;
  /** A child's sections (undefined for an adult). */
  scopes?: readonly Section[] | undefined;
}

/**
 * GET /api/v1/me's body (contract section 4): the caller's profile, role and current session.
 * Built from what the session check already read, without a database: `/me` costs the one read
 * of authentication and nothing more.
 */
export function profileOf({ user, session, scopes }: ProfileSource) {
  return {
    ...toUserView(user),
    ...(user.parentId ? { parentId: user.parentId } : {}),
    ...(user.accountType === 'child' && scopes ? { scopes: [...scopes] } : {}),
    session: { createdAt: session.createdAt, expiresAt: session.absoluteExpiresAt },
  };
}
