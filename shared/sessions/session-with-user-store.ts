import { parseStoredScopes } from '../children/stored-scopes';
import type { SqlExecutor } from '../db/database';
import type { AccountType, Role, Section, User, UserStatus } from '../users/user';
import type { Session } from './session';

/** A session with the user it belongs to, as every authenticated request needs them. */
export interface SessionWithUser {
  session: Session;
  user: User;
  /** A child's sections (contract section 4) as stored right now; undefined for an adult. */
  scopes: Section[] | undefined;
}

/**
 * One statement for the session check: the session, its user and (children only) the scopes,
 * joined, so an authenticated request costs one network hop to SQL Server, not one per table.
 * User columns get a `user` prefix where they share a name with a session column. Only the child's
 * scopes come from `ChildAccounts`: never its username or secret hash.
 */
const SESSION_WITH_USER_SELECT = `
  SELECT s.id, s.userId, s.secretHash, s.accountType, s.createdAt, s.lastUsedAt, s.idleExpiresAt, s.absoluteExpiresAt,
    s.endedAt, s.endReason, s.clientLabel,
    u.accountType AS userAccountType, u.issuer AS userIssuer, u.subject AS userSubject, u.parentId AS userParentId,
    u.role AS userRole, u.status AS userStatus, u.email AS userEmail, u.phone AS userPhone,
    u.createdAt AS userCreatedAt, u.updatedAt AS userUpdatedAt,
    c.scopes AS childScopes
  FROM Sessions s
  JOIN Users u ON u.id = s.userId
  LEFT JOIN ChildAccounts c ON c.userId = u.id
  WHERE s.id = @id`;

interface SessionWithUserRow extends Session {
  userAccountType: AccountType;
  userIssuer: string | null;
  userSubject: string | null;
  userParentId: string | null;
  userRole: Role;
  userStatus: UserStatus;
  userEmail: string | null;
  userPhone: string | null;
  userCreatedAt: string;
  userUpdatedAt: string;
  childScopes: string | null;
}

/**
 * The session with this id (ended ones included: the caller decides what an ended or expired
 * session means) together with its user; undefined when there is no such session.
 */
export async function findSessionWithUser(db: SqlExecutor, id: string): Promise<SessionWithUser | undefined> {
  const [row] = await db.query<SessionWithUserRow>(SESSION_WITH_USER_SELECT, { id });
  if (!row) return undefined;
  const session: Session = {
    id: row.id,
    userId: row.userId,
    secretHash: row.secretHash,
    accountType: row.accountType,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    idleExpiresAt: row.idleExpiresAt,
    absoluteExpiresAt: row.absoluteExpiresAt,
    endedAt: row.endedAt,
    endReason: row.endReason,
    clientLabel: row.clientLabel,
  };
  const user: User = {
    id: row.userId,
    accountType: row.userAccountType,
    issuer: row.userIssuer,
    subject: row.userSubject,
    parentId: row.userParentId,
    role: row.userRole,
    status: row.userStatus,
    email: row.userEmail,
    phone: row.userPhone,
    createdAt: row.userCreatedAt,
    updatedAt: row.userUpdatedAt,
  };
  const scopes = row.childScopes === null ? undefined : parseStoredScopes(row.childScopes);
  return { session, user, scopes };
}
