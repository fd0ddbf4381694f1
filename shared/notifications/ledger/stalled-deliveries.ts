import type { Database, Dialect, SqlExecutor } from '../../db/database';
import { jsonRowsCte, limitClause } from '../../db/dialect';
import type { Channel } from '../../ports/delivery';
import { inRows, type DeliveryKey } from './delivery-ledger';

/**
 * Ledger rows left behind by a holder that died. A claim and each renewal set a row's
 * lease (`claimedUntil`) ahead of the time they write (`updatedAt`); a release ends the lease at the
 * time it writes (`claimedUntil = updatedAt`) and a finish clears it. So a `pending` row whose lease
 * is over while still ahead of its last write was neither renewed, released nor finished by the
 * invocation that held it: that invocation is gone (a crash, a killed instance), and its queue
 * message may stay invisible for up to 10 minutes on the Functions host. Released rows are not
 * stalled: their message is already on its way back (and counts towards the poison queue).
 * Announcement rows only: a batch is re-driven over a range of its rows, while an account notice is
 * one message, re-driven from its own lease row (`../engine/message-leasing.ts`).
 */

/** A stalled row: `pending`, its lease over, never released. */
export interface StalledDelivery extends DeliveryKey {
  claimedUntil: string;
}

const STALLED = "result = 'pending' AND claimedUntil <= @now AND claimedUntil > updatedAt";

/**
 * The stalled rows at `now`, oldest lease first, at most `limit` of them (the filtered index
 * `IX_NotificationDeliveries_pending_claimedUntil` keeps it a seek over the rows in flight).
 */
export async function stalledDeliveries(db: Pick<Database, 'query' | 'dialect'>, now: string, limit: number): Promise<StalledDelivery[]> {
  return db.query<StalledDelivery>(
    `SELECT announcementId, userId, channel, claimedUntil FROM NotificationDeliveries
     WHERE ${STALLED}
     ORDER BY claimedUntil, announcementId, userId, channel ${limitClause(db.dialect, '@limit')}`,
    { now, limit },
  );
}

const TAKEN_COLUMNS = [
  { name: 'userId', type: { text: 64 } },
  { name: 'channel', type: { text: 16 } },
] as const;

/**
 * Marks stalled rows of one announcement as handed to a fresh queue message, in one statement: a
 * compare-and-set on the stalled state itself, which ends their lease as a release does, so they are
 * free for that message's claim and no later look-up hands them over again. Of two timers (or a
 * timer and a claim) racing for a row, exactly one changes it; a row claimed meanwhile is no longer
 * stalled and is left to its holder. The key range is locked as the ledger's claims lock theirs.
 * @returns the rows this call marked.
 */
export async function markStalledHandedOver(
  db: SqlExecutor,
  dialect: Dialect,
  announcementId: string,
  rows: readonly Pick<DeliveryKey, 'userId' | 'channel'>[],
  now: string,
): Promise<Pick<DeliveryKey, 'userId' | 'channel'>[]> {
  if (rows.length === 0) return [];
  const where = `WHERE announcementId = @announcementId AND ${STALLED} AND ${inRows(dialect)}`;
  const set = 'SET claimedUntil = @now, updatedAt = @now';
  const statement: Record<Dialect, string> = {
    sqlite: `UPDATE NotificationDeliveries ${set} ${where} RETURNING userId, channel`,
    mssql: `UPDATE NotificationDeliveries WITH (UPDLOCK, HOLDLOCK) ${set} OUTPUT inserted.userId, inserted.channel ${where}`,
  };
  const taken = await db.query<{ userId: string; channel: Channel }>(`${jsonRowsCte(dialect, 'j', '@rows', TAKEN_COLUMNS)} ${statement[dialect]}`, {
    announcementId,
    now,
    rows: JSON.stringify(rows.map((row) => ({ userId: row.userId, channel: row.channel }))),
  });
  return taken.map((row) => ({ userId: row.userId, channel: row.channel }));
}

/**
 * The greatest user id below `userId` (`''` when none): the exclusive start of a batch range that
 * begins at `userId` and reaches back into no other batch, whether or not that batch has ledger
 * rows yet.
 */
export async function userIdBefore(db: SqlExecutor, userId: string): Promise<string> {
  const [row] = await db.query<{ id: string | null }>('SELECT MAX(id) AS id FROM Users WHERE id < @userId', { userId });
  return row?.id ?? '';
}
