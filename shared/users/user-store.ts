import type { Database, SqlExecutor } from '../db/database';
import { limitClause } from '../db/dialect';
import { START_OF_LIST, toPage, type ListCursor } from '../db/keyset-page';
import type { AdultRole, User, UserStatus } from './user';

/** The `Users` table. Every function takes an executor, so writes can join the caller's transaction. */

const USER_COLUMNS = 'id, accountType, issuer, subject, parentId, role, status, email, phone, createdAt, updatedAt';

/** The adult keyed by identity-provider issuer and subject, if they signed in before. */
export async function findAdultByIdentity(db: SqlExecutor, issuer: string, subject: string): Promise<User | undefined> {
  const rows = await db.query<User>(
    `SELECT ${USER_COLUMNS} FROM Users WHERE issuer = @issuer AND subject = @subject`,
    { issuer, subject },
  );
  return rows[0];
}

export async function findUserById(db: SqlExecutor, id: string): Promise<User | undefined> {
  const rows = await db.query<User>(`SELECT ${USER_COLUMNS} FROM Users WHERE id = @id`, { id });
  return rows[0];
}

export async function insertUser(tx: SqlExecutor, user: User): Promise<void> {
  await tx.execute(
    `INSERT INTO Users (${USER_COLUMNS})
     VALUES (@id, @accountType, @issuer, @subject, @parentId, @role, @status, @email, @phone, @createdAt, @updatedAt)`,
    { ...user },
  );
}

/**
 * Changes an adult's role from `from` to `role`; resolves false when the role was no longer `from`
 * (a concurrent change won), so the caller audits only the change that happened.
 */
export async function updateUserRole(tx: SqlExecutor, id: string, from: AdultRole, role: AdultRole, now: string): Promise<boolean> {
  const changed = await tx.execute(
    `UPDATE Users SET role = @role, updatedAt = @now WHERE id = @id AND accountType = 'adult' AND role = @from`,
    { id, from, role, now },
  );
  return changed === 1;
}

/** Moves a user from status `from` to `to`; resolves false when the status was no longer `from`. */
export async function transitionUserStatus(tx: SqlExecutor, id: string, from: UserStatus, to: UserStatus, now: string): Promise<boolean> {
  const changed = await tx.execute('UPDATE Users SET status = @to, updatedAt = @now WHERE id = @id AND status = @from', {
    id,
    from,
    to,
    now,
  });
  return changed === 1;
}

export async function updateUserStatus(tx: SqlExecutor, id: string, status: UserStatus, now: string): Promise<void> {
  await tx.execute('UPDATE Users SET status = @status, updatedAt = @now WHERE id = @id', { id, status, now });
}

/**
 * Sets both of an adult's contact values, null clearing one. A sign-in uses
 * `refreshAdultContact` instead: a token that says nothing about a value must not erase it.
 */
export async function updateAdultContact(
  tx: SqlExecutor,
  id: string,
  contact: { email: string | null; phone: string | null },
  now: string,
): Promise<void> {
  await tx.execute('UPDATE Users SET email = @email, phone = @phone, updatedAt = @now WHERE id = @id', {
    id,
    email: contact.email,
    phone: contact.phone,
    now,
  });
}

/**
 * Keeps an adult's contact data current from a sign-in (it feeds notifications): a value given
 * replaces the stored one, a value left out keeps it. One statement, so two sign-ins that assert
 * different values (one the e-mail, the other the phone) cannot undo each other.
 * Only an active adult's row: never a tombstone's (an erasure cleared it for good).
 * @param contact canonical values the provider vouched for; at least one of them.
 * @returns whether the adult's row was found (and active).
 */
export async function refreshAdultContact(
  tx: SqlExecutor,
  id: string,
  contact: { email?: string | undefined; phone?: string | undefined },
  now: string,
): Promise<boolean> {
  const changed = await tx.execute(
    `UPDATE Users SET email = COALESCE(@email, email), phone = COALESCE(@phone, phone), updatedAt = @now
     WHERE id = @id AND accountType = 'adult' AND status = 'active'`,
    { id, email: contact.email ?? null, phone: contact.phone ?? null, now },
  );
  return changed === 1;
}

/** One page of adults with `status`, oldest first, and the cursor of the next page. */
export async function listAdultsByStatus(
  db: Database,
  status: UserStatus,
  page: { limit: number; after?: ListCursor },
): Promise<{ items: User[]; next: ListCursor | null }> {
  const after = page.after ?? START_OF_LIST;
  const rows = await db.query<User>(
    `SELECT ${USER_COLUMNS} FROM Users
     WHERE accountType = 'adult' AND status = @status
       AND (createdAt > @afterCreatedAt OR (createdAt = @afterCreatedAt AND id > @afterId))
     ORDER BY createdAt, id ${limitClause(db.dialect, '@limit')}`,
    { status, afterCreatedAt: after.createdAt, afterId: after.id, limit: page.limit + 1 },
  );
  return toPage(rows, page.limit, (user) => ({ createdAt: user.createdAt, id: user.id }));
}
