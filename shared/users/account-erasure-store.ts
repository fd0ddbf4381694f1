import type { Database, SqlExecutor } from '../db/database';
import { limitClause } from '../db/dialect';

/**
 * The statements of erasure (`account-erasure.ts`, `data-rights/erase-account.ts`). Each takes the
 * executor of the erasure's one transaction. What they remove is personal data or a secret; what
 * they keep holds ids only.
 */

/**
 * Turns the Users row into a tombstone: status `erased`, no contact data, no identity-provider
 * issuer or subject (the same person signing in again starts a new account).
 * @returns false when the row was erased already (a concurrent erasure won).
 */
export async function tombstoneUser(tx: SqlExecutor, userId: string, now: string): Promise<boolean> {
  const changed = await tx.execute(
    `UPDATE Users SET status = 'erased', issuer = NULL, subject = NULL, email = NULL, phone = NULL, updatedAt = @now
     WHERE id = @userId AND status <> 'erased'`,
    { userId, now },
  );
  return changed === 1;
}

/**
 * Removes every session row of the user, open or ended: their secret hashes go with them, and so
 * does every way back in. Audit rows keep the sessions' ids, which name nothing.
 * @returns how many rows went.
 */
export async function deleteUserSessions(tx: SqlExecutor, userId: string): Promise<number> {
  return tx.execute('DELETE FROM Sessions WHERE userId = @userId', { userId });
}

/**
 * Removes the user's devices (push tokens), the push tickets that still name a token of theirs,
 * and their notification preferences.
 * @returns how many devices went.
 */
export async function deleteUserDevicesAndPreferences(tx: SqlExecutor, userId: string): Promise<number> {
  await tx.execute('DELETE FROM PushTickets WHERE userId = @userId', { userId });
  const devices = await tx.execute('DELETE FROM PushTokens WHERE userId = @userId', { userId });
  await tx.execute('DELETE FROM NotificationPreferences WHERE userId = @userId', { userId });
  return devices;
}

/** Removes a child's credentials row: its username, secret hash, sections and lock. */
export async function deleteChildCredentials(tx: SqlExecutor, userId: string): Promise<boolean> {
  return (await tx.execute('DELETE FROM ChildAccounts WHERE userId = @userId', { userId })) === 1;
}

/** How many of the parent's children are not erased (deleted ones count: their data is still kept). */
export async function countChildrenNotErased(db: SqlExecutor, parentId: string): Promise<number> {
  const [row] = await db.query<{ children: number }>(
    "SELECT COUNT(*) AS children FROM Users WHERE parentId = @parentId AND status <> 'erased'",
    { parentId },
  );
  return Number(row?.children ?? 0);
}

/**
 * Keeps an erased child's username taken until `releasedAt`, by its key (never the name itself).
 * A key reserved before (the name was erased, freed, taken and erased again) gets the new dates.
 */
export async function reserveUsername(tx: SqlExecutor, usernameKey: string, now: string, releasedAt: string): Promise<void> {
  await tx.execute('DELETE FROM ReservedUsernames WHERE usernameKey = @usernameKey', { usernameKey });
  await tx.execute('INSERT INTO ReservedUsernames (usernameKey, reservedAt, releasedAt) VALUES (@usernameKey, @now, @releasedAt)', {
    usernameKey,
    now,
    releasedAt,
  });
}

/**
 * Deletes at most `limit` reservations that ended at or before `now`, oldest first (the hourly
 * sweep): once released, a reservation's key is nothing the service needs to keep.
 * @returns how many went.
 */
export async function pruneReleasedUsernamesBatch(db: Database, now: string, limit: number): Promise<number> {
  return db.execute(
    `DELETE FROM ReservedUsernames WHERE usernameKey IN (
       SELECT usernameKey FROM ReservedUsernames WHERE releasedAt <= @now
       ORDER BY releasedAt ${limitClause(db.dialect, '@limit')})`,
    { now, limit },
  );
}

/** Whether the username behind `usernameKey` is still reserved at `now`. */
export async function isUsernameReserved(db: SqlExecutor, usernameKey: string, now: string): Promise<boolean> {
  const rows = await db.query<{ releasedAt: string }>(
    'SELECT releasedAt FROM ReservedUsernames WHERE usernameKey = @usernameKey AND releasedAt > @now',
    { usernameKey, now },
  );
  return rows.length > 0;
}

/**
 * The tombstone of an adult an administrator erases (`eraseInactiveAdult`): as `tombstoneUser`,
 * but only while the adult is still pending approval or disabled, so an approval that won a race
 * leaves the account alone (an active adult erases themselves).
 * @returns false when the adult was not (any longer) pending or disabled.
 */
export async function tombstoneInactiveAdult(tx: SqlExecutor, userId: string, now: string): Promise<boolean> {
  const changed = await tx.execute(
    `UPDATE Users SET status = 'erased', issuer = NULL, subject = NULL, email = NULL, phone = NULL, updatedAt = @now
     WHERE id = @userId AND accountType = 'adult' AND status IN ('pending_approval', 'disabled')`,
    { userId, now },
  );
  return changed === 1;
}

/** How many active administrators there are besides `userId` (taken under `ADMINS_LOCK`). */
export async function countOtherActiveAdmins(db: SqlExecutor, userId: string): Promise<number> {
  const [row] = await db.query<{ admins: number }>(
    "SELECT COUNT(*) AS admins FROM Users WHERE accountType = 'adult' AND role = 'admin' AND status = 'active' AND id <> @userId",
    { userId },
  );
  return Number(row?.admins ?? 0);
}

/**
 * Removes the announcements the author never got published (drafts, rejected ones, and queued or
 * approved ones, which could otherwise still go out in the name of an erased person). Published
 * ones stay: they are community content, already delivered, and their delivery ledgers hold their
 * id (no unpublished announcement has a ledger row: the fan-out runs only for published ones).
 * @returns how many went.
 */
export async function deleteUnpublishedAnnouncements(tx: SqlExecutor, authorId: string): Promise<number> {
  return tx.execute("DELETE FROM Announcements WHERE authorId = @authorId AND status <> 'published'", { authorId });
}
