import type { SqlExecutor, SqlParams } from '../../db/database';
import { ANNOUNCEMENT_LEDGER, failUnheldRows, resetFailedRows } from './leased-rows';

/**
 * The ledger rows of a fan-out message that went to the poison queue. Such rows are `failed` with
 * this `providerCode` (no provider said so: the queue gave up on the message), which sets them apart
 * from rows a provider really failed; only these are ever made `pending` again by a re-drive.
 */
export const POISONED_PROVIDER_CODE = 'poisoned';

/**
 * The ledger rows a fan-out message covers: its announcement's rows of the users after
 * `afterUserId` and, when given, up to `throughUserId` (a batch message's range); without
 * `throughUserId`, every row after `afterUserId` (the first message: the whole announcement).
 */
export interface LedgerRange {
  announcementId: string;
  afterUserId: string;
  throughUserId?: string | undefined;
}

/** Rows of a range that are not delivered yet. */
export interface UndeliveredCounts {
  /** `pending`: never finished (a send under way, or given back after a failed try). */
  pending: number;
  /** `failed` by poisoning: sent again by a re-drive. */
  poisoned: number;
}

function rangeOf(range: LedgerRange): { where: string; params: SqlParams } {
  const through = range.throughUserId === undefined ? '' : 'AND userId <= @throughUserId';
  return {
    where: `announcementId = @announcementId AND userId > @afterUserId ${through}`,
    params: {
      announcementId: range.announcementId,
      afterUserId: range.afterUserId,
      ...(range.throughUserId === undefined ? {} : { throughUserId: range.throughUserId }),
    },
  };
}

/**
 * Marks the unfinished rows of a range `failed` / `poisoned`: the last try of their message failed
 * and the host moves it to the poison queue, so nothing would ever finish them. A row under a live
 * lease is left alone: another invocation (a copy of the same batch) is sending it and will write
 * its result. One conditional statement, so a claim racing with it either wins (the row is then
 * under lease and skipped) or sees the row final.
 * @returns how many rows were marked.
 */
export async function markPoisonedDeliveries(db: SqlExecutor, range: LedgerRange, now: string): Promise<number> {
  const { where, params } = rangeOf(range);
  return failUnheldRows(db, ANNOUNCEMENT_LEDGER, where, params, POISONED_PROVIDER_CODE, now);
}

/**
 * Makes the poisoned rows of a range `pending` again (no lease), so the re-driven message claims
 * and sends them. Rows with any other result (delivered, accepted, failed by a provider, opted
 * out, ...) keep it: a re-drive never sends them.
 * @returns how many rows were reset.
 */
export async function resetPoisonedDeliveries(db: SqlExecutor, range: LedgerRange, now: string): Promise<number> {
  const { where, params } = rangeOf(range);
  return resetFailedRows(db, ANNOUNCEMENT_LEDGER, where, params, POISONED_PROVIDER_CODE, now);
}

/** How many rows of a range are still to be delivered: `pending`, and `failed` by poisoning. */
export async function countUndelivered(db: SqlExecutor, range: LedgerRange): Promise<UndeliveredCounts> {
  const { where, params } = rangeOf(range);
  const [row] = await db.query<{ pending: number | null; poisoned: number | null }>(
    `SELECT SUM(CASE WHEN result = 'pending' THEN 1 ELSE 0 END) AS pending,
            SUM(CASE WHEN result = 'failed' AND providerCode = @poisoned THEN 1 ELSE 0 END) AS poisoned
     FROM NotificationDeliveries
     WHERE ${where} AND result IN ('pending', 'failed')`,
    { ...params, poisoned: POISONED_PROVIDER_CODE },
  );
  return { pending: Number(row?.pending ?? 0), poisoned: Number(row?.poisoned ?? 0) };
}

/** The state of one ledger row (no contact data, no provider ids). */
export interface DeliveryState {
  userId: string;
  channel: string;
  result: string;
  providerCode: string | null;
}

/** The state of every row of a range (a batch's: at most its recipients × 3 channels). */
export async function deliveryStatesInRange(db: SqlExecutor, range: LedgerRange): Promise<DeliveryState[]> {
  const { where, params } = rangeOf(range);
  return db.query<DeliveryState>(`SELECT userId, channel, result, providerCode FROM NotificationDeliveries WHERE ${where}`, params);
}

/** True for a row a re-drive sends: never finished, or failed by poisoning. */
export function isUndelivered(row: Pick<DeliveryState, 'result' | 'providerCode'>): boolean {
  return row.result === 'pending' || (row.result === 'failed' && row.providerCode === POISONED_PROVIDER_CODE);
}
