import { findChildById } from '../children/child-account-store';
import type { Database } from '../db/database';
import type { Session } from '../sessions/session';
import type { User } from '../users/user';
import { toUserView } from '../users/user-view';

/** GET /api/v1/me's body (contract section 4): the caller's profile, role and current session. */
export async function profileOf(db: Database, user: User, session: Session) {
  const child = user.accountType === 'child' ? await findChildById(db, user.id) : undefined;
  return {
    ...toUserView(user),
    ...(user.parentId ? { parentId: user.parentId } : {}),
    ...(child ? { scopes: child.scopes } : {}),
    session: { createdAt: session.createdAt, expiresAt: session.absoluteExpiresAt },
  };
}
