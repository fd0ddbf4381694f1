import type { Database, SqlExecutor } from '../db/database';
import { UniqueViolationError } from '../db/database-errors';
import type { Channel } from './providers/delivery';

/**
 * The delivery ledger (contract section 10): one row per announcement × user × channel, unique, so
 * a queue message delivered twice never sends twice. A sender claims the row before sending:
 * - the first claim inserts it as `pending` with a lease (`claimedUntil`);
 * - a row with a final result is never sent again;
 * - a `pending` row whose lease ran out (a crash, or a failed attempt that released it) is claimed
 *   again, and `attempts` counts the claims;
 * - a `pending` row under someone else's live lease is left to them (`busy`).
 * What stays possible is the at-least-once gap every queue has: a crash after the provider accepted
 * a message but before its row was finished sends that one message again on redelivery.
 */

/** Final results: the `notification.delivery` results of contract section 8. */
export const DELIVERY_RESULTS = ['success', 'provider_error', 'hard_bounce', 'stale_token', 'opted_out', 'budget_exceeded'] as const;
export type DeliveryResult = (typeof DELIVERY_RESULTS)[number];

export interface DeliveryKey {
  announcementId: string;
  userId: string;
  channel: Channel;
}

export type Claim = 'claimed' | 'done' | 'busy';

export interface DeliveryRow extends DeliveryKey {
  result: DeliveryResult | 'pending';
  attempts: number;
  providerCode: string | null;
  providerMessageId: string | null;
  claimedUntil: string | null;
  createdAt: string;
  updatedAt: string;
}

const KEY = 'announcementId = @announcementId AND userId = @userId AND channel = @channel';

/**
 * Claims the row of `key` for sending until `leaseUntil`.
 * @returns `claimed`: send it; `done`: it has a final result, skip it; `busy`: another invocation holds it.
 */
export async function claimDelivery(db: SqlExecutor, key: DeliveryKey, now: string, leaseUntil: string): Promise<Claim> {
  const { announcementId, userId, channel } = key;
  try {
    await db.execute(
      `INSERT INTO NotificationDeliveries
         (announcementId, userId, channel, result, attempts, providerCode, providerMessageId, claimedUntil, createdAt, updatedAt)
       VALUES (@announcementId, @userId, @channel, 'pending', 1, NULL, NULL, @leaseUntil, @now, @now)`,
      { announcementId, userId, channel, leaseUntil, now },
    );
    return 'claimed';
  } catch (error) {
    if (!(error instanceof UniqueViolationError)) throw error;
  }
  // One conditional statement: of two invocations reclaiming at once, exactly one changes the row.
  const reclaimed = await db.execute(
    `UPDATE NotificationDeliveries SET attempts = attempts + 1, claimedUntil = @leaseUntil, updatedAt = @now
     WHERE ${KEY} AND result = 'pending' AND (claimedUntil IS NULL OR claimedUntil <= @now)`,
    { announcementId, userId, channel, leaseUntil, now },
  );
  if (reclaimed === 1) return 'claimed';
  const [row] = await db.query<{ result: string }>(`SELECT result FROM NotificationDeliveries WHERE ${KEY}`, {
    announcementId,
    userId,
    channel,
  });
  return row?.result === 'pending' ? 'busy' : 'done';
}

/**
 * Claims many rows in one transaction (one commit instead of one per row): how a batch claims its
 * recipients' rows before it starts sending.
 * @returns the claim of each key, in order.
 */
export async function claimDeliveries(db: Database, keys: readonly DeliveryKey[], now: string, leaseUntil: string): Promise<Claim[]> {
  if (keys.length === 0) return [];
  return db.transaction(async (tx) => {
    const claims: Claim[] = [];
    // A unique violation ends only its statement, not the transaction (SQLite, and SQL Server without XACT_ABORT).
    for (const key of keys) claims.push(await claimDelivery(tx, key, now, leaseUntil));
    return claims;
  });
}

/** Records the final result of a claimed row (and ends its lease). */
export async function finishDelivery(
  db: SqlExecutor,
  key: DeliveryKey,
  outcome: { result: DeliveryResult; providerCode?: string | undefined; providerMessageId?: string | undefined },
  now: string,
): Promise<void> {
  await db.execute(
    `UPDATE NotificationDeliveries
     SET result = @result, providerCode = @providerCode, providerMessageId = @providerMessageId, claimedUntil = NULL, updatedAt = @now
     WHERE ${KEY}`,
    {
      ...key,
      result: outcome.result,
      providerCode: outcome.providerCode?.slice(0, 64) ?? null,
      providerMessageId: outcome.providerMessageId?.slice(0, 128) ?? null,
      now,
    },
  );
}

/**
 * Gives a claimed row back without a final result (a transient failure that outlived the retries,
 * or an invocation that failed): the lease ends now, so the redelivered message claims it at once.
 */
export async function releaseDelivery(db: SqlExecutor, key: DeliveryKey, now: string, providerCode?: string): Promise<void> {
  await db.execute(
    `UPDATE NotificationDeliveries SET claimedUntil = @now, providerCode = COALESCE(@providerCode, providerCode), updatedAt = @now
     WHERE ${KEY} AND result = 'pending'`,
    { ...key, now, providerCode: providerCode?.slice(0, 64) ?? null },
  );
}

/** Every ledger row of an announcement (tests, operators' checks). */
export async function deliveriesOf(db: SqlExecutor, announcementId: string): Promise<DeliveryRow[]> {
  const rows = await db.query<DeliveryRow>(
    `SELECT announcementId, userId, channel, result, attempts, providerCode, providerMessageId, claimedUntil, createdAt, updatedAt
     FROM NotificationDeliveries WHERE announcementId = @announcementId ORDER BY userId, channel`,
    { announcementId },
  );
  return rows.map((row) => ({ ...row, attempts: Number(row.attempts) }));
}
