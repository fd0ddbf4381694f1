import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import type { SqlExecutor, TransactionExecutor } from '../db/database';
import { UniqueViolationError } from '../db/database-errors';

/**
 * Devices registered for push (contract section 10): Expo push tokens, one row each. A token is a
 * device address, personal data like a phone number: stored here, handed to the push provider,
 * never logged.
 */

/** Expo's two spellings, `ExponentPushToken[…]` and `ExpoPushToken[…]`, with a bounded inner id. */
export const EXPO_PUSH_TOKEN = /^(?:ExponentPushToken|ExpoPushToken)\[[A-Za-z0-9_\-.:+/=]{1,200}\]$/;

/** At most this many devices per user; registering one more forgets the least recently registered. */
export const MAX_DEVICES_PER_USER = 10;

/** Body of PUT and DELETE /api/v1/me/push-tokens. */
export const pushTokenBody = lazySchema(() => z.strictObject({ token: z.string().check(z.maxLength(256), z.regex(EXPO_PUSH_TOKEN)) }));

/**
 * Registers `token` for `userId` (or moves it there from whoever had it: a token belongs to the
 * device's current user), then trims the user's devices to `MAX_DEVICES_PER_USER`. Resolves with
 * the user the token was taken from, if any, so the move is on record.
 * Pass a transaction: the upsert and the trim belong together. It locks the token, then the user:
 * two registrations of one device take turns (so the second sees and reports the move), and so do
 * two of one user's devices (each trim counts the other's row, so the user keeps at most 10).
 * Under the user's lock, which an erasure takes too, it registers nothing (`registered: false`)
 * for a user who is no longer active: a registration that raced the erasure of its account must
 * not leave a device behind the tombstone.
 */
export async function registerPushToken(
  tx: TransactionExecutor,
  userId: string,
  token: string,
  now: string,
): Promise<{ registered: boolean; movedFromUserId: string | null }> {
  // The token itself is personal data and may be longer than a lock name: its digest names the lock.
  await tx.lock(`push-token:${createHash('sha256').update(token).digest('hex')}`);
  await tx.lock(userSettingsLock(userId));
  if (!(await isActiveUser(tx, userId))) return { registered: false, movedFromUserId: null };
  const values = { token, userId, now };
  const [previous] = await tx.query<{ userId: string }>('SELECT userId FROM PushTokens WHERE token = @token', { token });
  const move = () => tx.execute('UPDATE PushTokens SET userId = @userId, updatedAt = @now WHERE token = @token', values);
  if ((await move()) === 0) {
    try {
      await tx.execute('INSERT INTO PushTokens (token, userId, createdAt, updatedAt) VALUES (@token, @userId, @now, @now)', values);
    } catch (error) {
      // Registered by another request in between: take it over like any other re-registration.
      if (!(error instanceof UniqueViolationError)) throw error;
      await move();
    }
  }
  await trimDevices(tx, userId);
  return { registered: true, movedFromUserId: previous && previous.userId !== userId ? previous.userId : null };
}

/**
 * The lock of a user's notification settings (devices and preferences): taken by a registration
 * (after the token's), a change of preferences and an erasure, so neither change can land after
 * the erasure removed the user's rows.
 */
export function userSettingsLock(userId: string): string {
  return `push-tokens:user:${userId}`;
}

/** Whether `userId` is an active user; read under `userSettingsLock` by the changes it guards. */
export async function isActiveUser(tx: SqlExecutor, userId: string): Promise<boolean> {
  const rows = await tx.query<{ status: string }>("SELECT status FROM Users WHERE id = @userId AND status = 'active'", { userId });
  return rows.length > 0;
}

/** Removes `token` if it is registered to `userId`; someone else's token is left alone. Resolves whether a row went. */
export async function removePushToken(db: SqlExecutor, userId: string, token: string): Promise<boolean> {
  return (await db.execute('DELETE FROM PushTokens WHERE token = @token AND userId = @userId', { token, userId })) > 0;
}

/**
 * Removes a token the push service reported as no longer registered, unless it was registered
 * again after `sentAt` (the device came back while the message was on its way).
 */
export async function removeStalePushToken(db: SqlExecutor, token: string, sentAt: string): Promise<boolean> {
  return (await db.execute('DELETE FROM PushTokens WHERE token = @token AND updatedAt <= @sentAt', { token, sentAt })) > 0;
}

/** How many devices `userId` has registered. */
export async function countPushTokens(db: SqlExecutor, userId: string): Promise<number> {
  const [row] = await db.query<{ devices: number }>('SELECT COUNT(*) AS devices FROM PushTokens WHERE userId = @userId', { userId });
  return Number(row?.devices ?? 0);
}

/**
 * The tokens of every user with an id in (`afterUserId`, `throughUserId`]: the devices of one
 * recipients page, read with one range query instead of one query per recipient.
 */
export async function pushTokensInRange(
  db: SqlExecutor,
  afterUserId: string,
  throughUserId: string,
): Promise<Map<string, string[]>> {
  const rows = await db.query<{ userId: string; token: string }>(
    `SELECT userId, token FROM PushTokens WHERE userId > @afterUserId AND userId <= @throughUserId
     ORDER BY userId, updatedAt DESC`,
    { afterUserId, throughUserId },
  );
  const byUser = new Map<string, string[]>();
  for (const row of rows) {
    const tokens = byUser.get(row.userId);
    if (tokens) tokens.push(row.token);
    else byUser.set(row.userId, [row.token]);
  }
  return byUser;
}

async function trimDevices(tx: SqlExecutor, userId: string): Promise<void> {
  const rows = await tx.query<{ token: string }>(
    'SELECT token FROM PushTokens WHERE userId = @userId ORDER BY updatedAt DESC, token',
    { userId },
  );
  for (const { token } of rows.slice(MAX_DEVICES_PER_USER)) {
    // Still this user's: a registration elsewhere may have moved the device since the read.
    await tx.execute('DELETE FROM PushTokens WHERE token = @token AND userId = @userId', { token, userId });
  }
}

/** The push tokens of a user's devices, most recently registered first. */
export async function pushTokensOfUser(db: SqlExecutor, userId: string): Promise<string[]> {
  const rows = await db.query<{ token: string }>('SELECT token FROM PushTokens WHERE userId = @userId ORDER BY updatedAt DESC, token', { userId });
  return rows.map((row) => row.token);
}
