import { isChildUsername, type ChildUsername } from './child-username';
import type { Database, SqlExecutor } from '../db/database';
import { limitClause } from '../db/dialect';
import { START_OF_LIST, toPage, type ListCursor } from '../db/keyset-page';
import type { Section, User } from '../users/user';
import { insertUser } from '../users/user-store';
import type { ChildAccount, SecretKind } from './child-account';
import { parseStoredScopes } from './stored-scopes';

/** `Users` + `ChildAccounts` for child sub-accounts. Writes take an executor to join the caller's transaction. */

const CHILD_SELECT = `
  SELECT u.id AS userId, u.parentId, c.username, c.secretHash, c.secretKind, c.scopes, u.status, c.lockedAt, c.deletedAt, u.createdAt
  FROM ChildAccounts c JOIN Users u ON u.id = c.userId`;

interface ChildRow extends Omit<ChildAccount, 'scopes'> {
  scopes: string;
}

function toChildAccount(row: ChildRow): ChildAccount {
  return { ...row, scopes: parseStoredScopes(row.scopes) };
}

export interface NewChildAccount {
  user: User;
  username: ChildUsername;
  secretHash: string;
  secretKind: SecretKind;
  scopes: readonly Section[];
}

/** Creates the child's Users row and its credentials; a taken username throws `UniqueViolationError`. */
export async function insertChildAccount(tx: SqlExecutor, child: NewChildAccount): Promise<void> {
  assertStoredForm(child.username);
  await insertUser(tx, child.user);
  await tx.execute(
    `INSERT INTO ChildAccounts (userId, username, secretHash, secretKind, scopes, lockedAt, deletedAt, secretChangedAt)
     VALUES (@userId, @username, @secretHash, @secretKind, @scopes, NULL, NULL, @now)`,
    {
      userId: child.user.id,
      username: child.username,
      secretHash: child.secretHash,
      secretKind: child.secretKind,
      scopes: JSON.stringify(child.scopes),
      now: child.user.createdAt,
    },
  );
}

/**
 * The child with this username, deleted ones included (their usernames stay taken). Takes only
 * the stored form: SQL Server would match `kid ` to `kid` (trailing spaces never count in its
 * comparisons), so a spelling must be refused before it gets here.
 */
export async function findChildByUsername(db: SqlExecutor, username: ChildUsername): Promise<ChildAccount | undefined> {
  assertStoredForm(username);
  const rows = await db.query<ChildRow>(`${CHILD_SELECT} WHERE c.username = @username`, { username });
  return rows[0] ? toChildAccount(rows[0]) : undefined;
}

/** A bug guard: the type says it, but a cast or a stored row could still slip a spelling through. */
function assertStoredForm(username: string): void {
  if (!isChildUsername(username)) throw new Error('child username is not in its stored form');
}

export async function findChildById(db: SqlExecutor, userId: string): Promise<ChildAccount | undefined> {
  const rows = await db.query<ChildRow>(`${CHILD_SELECT} WHERE c.userId = @userId`, { userId });
  return rows[0] ? toChildAccount(rows[0]) : undefined;
}

/** One page of a parent's children that are not deleted, oldest first. */
export async function listChildrenOfParent(
  db: Database,
  parentId: string,
  page: { limit: number; after?: ListCursor },
): Promise<{ items: ChildAccount[]; next: ListCursor | null }> {
  const after = page.after ?? START_OF_LIST;
  const rows = await db.query<ChildRow>(
    `${CHILD_SELECT}
     WHERE u.parentId = @parentId AND c.deletedAt IS NULL
       AND (u.createdAt > @afterCreatedAt OR (u.createdAt = @afterCreatedAt AND u.id > @afterId))
     ORDER BY u.createdAt, u.id ${limitClause(db.dialect, '@limit')}`,
    { parentId, afterCreatedAt: after.createdAt, afterId: after.id, limit: page.limit + 1 },
  );
  const { items, next } = toPage(rows, page.limit, (row) => ({ createdAt: row.createdAt, id: row.userId }));
  return { items: items.map(toChildAccount), next };
}

export async function updateChildScopes(tx: SqlExecutor, userId: string, scopes: readonly Section[]): Promise<void> {
  await tx.execute('UPDATE ChildAccounts SET scopes = @scopes WHERE userId = @userId', { userId, scopes: JSON.stringify(scopes) });
}

/** Sets a new secret chosen by the parent: it also clears the lock. */
export async function setChildSecret(
  tx: SqlExecutor,
  userId: string,
  secret: { hash: string; kind: SecretKind },
  now: string,
): Promise<void> {
  await tx.execute(
    'UPDATE ChildAccounts SET secretHash = @hash, secretKind = @kind, secretChangedAt = @now, lockedAt = NULL WHERE userId = @userId',
    { userId, hash: secret.hash, kind: secret.kind, now },
  );
}

/**
 * Confirms, inside a sign-in's transaction, that the secret just verified is still the child's
 * (the parent may have set a new one while Argon2 ran), and stores `rehashed` when the hash is to
 * be renewed with the current Argon2 parameters. The UPDATE also holds the row until the sign-in
 * commits, so a concurrent change of secret waits for it (and then revokes its session).
 * @returns false when the secret changed meanwhile: the sign-in must not go on.
 */
export async function claimVerifiedSecret(tx: SqlExecutor, userId: string, verifiedHash: string, rehashed?: string): Promise<boolean> {
  const changed = await tx.execute(
    'UPDATE ChildAccounts SET secretHash = @newHash WHERE userId = @userId AND secretHash = @verifiedHash AND lockedAt IS NULL',
    { userId, verifiedHash, newHash: rehashed ?? verifiedHash },
  );
  return changed === 1;
}

/**
 * Locks the child's account unless it is locked already.
 * @returns true when this statement locked it: the lock's notice and audit row belong to that
 *   caller only, however many sign-ins saw the tenth failure at once.
 */
export async function lockChild(tx: SqlExecutor, userId: string, now: string): Promise<boolean> {
  const changed = await tx.execute('UPDATE ChildAccounts SET lockedAt = @now WHERE userId = @userId AND lockedAt IS NULL', { userId, now });
  return changed === 1;
}

export async function markChildDeleted(tx: SqlExecutor, userId: string, now: string): Promise<void> {
  await tx.execute('UPDATE ChildAccounts SET deletedAt = @now WHERE userId = @userId AND deletedAt IS NULL', { userId, now });
}
