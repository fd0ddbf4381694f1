import { markStalledHandedOver, stalledDeliveries, userIdBefore, type StalledDelivery } from '../ledger/stalled-deliveries';
import type { FanoutDeps } from '../engine/fanout-deps';
import type { FanoutMessage } from '../../messages/fanout-message';

/** Stalled rows read per run: far more than a crash leaves; the rest wait for the next run. */
export const STALLED_ROWS_PER_RUN = 5000;

export interface RedriveResult {
  /** Batch messages enqueued. */
  messages: number;
  /** Ledger rows handed to them. */
  rows: number;
}

export type RedriveDeps = Pick<FanoutDeps, 'database' | 'queue' | 'clock' | 'logger' | 'telemetry' | 'batchSize'>;

/**
 * Recovery from the ledger, not from the queue: the Functions host keeps a running
 * queue message invisible for 10 minutes (renewed halfway), so after a crash a batch's message is
 * not seen again for up to 10 minutes, past ACS's 5-minute repeatability window. The ledger's own
 * lease is one minute: once it runs out on rows nobody released (`stalled-deliveries.ts`), this
 * enqueues a fresh batch message over their users' id range (the `fanout-recovery-timer`, every 30
 * seconds), so delivery resumes within 90 seconds of the crash. For each range the message goes
 * first, then the rows are marked handed over by a compare-and-set: a failed enqueue leaves them
 * stalled for the next run, and two runs racing at most make a second message, which finds the
 * rows taken and ends (`redriven`). The claim's own compare-and-set keeps one holder per row.
 */
export async function redriveStalledBatches(deps: RedriveDeps): Promise<RedriveResult> {
  const db = await deps.database.get();
  const now = deps.clock.now().toISOString();
  const stalled = await stalledDeliveries(db, now, STALLED_ROWS_PER_RUN);
  const result: RedriveResult = { messages: 0, rows: 0 };
  for (const rows of byHolder(stalled)) {
    const announcementId = (rows[0] as StalledDelivery).announcementId;
    const users = [...new Set(rows.map((row) => row.userId))].sort(compareIds);
    for (let start = 0; start < users.length; start += deps.batchSize) {
      const range = users.slice(start, start + deps.batchSize);
      const first = range[0] as string;
      const through = range[range.length - 1] as string;
      const inRange = new Set(range);
      const message: FanoutMessage = {
        announcementId,
        batch: { afterUserId: await userIdBefore(db, first), throughUserId: through, size: deps.batchSize },
        redriven: true,
      };
      await deps.queue.enqueue(message);
      const taken = await markStalledHandedOver(
        db,
        db.dialect,
        announcementId,
        rows.filter((row) => inRange.has(row.userId)),
        now,
      );
      result.messages += 1;
      result.rows += taken.length;
      deps.logger.warn(
        { announcementId, stalledRows: taken.length, users: range.length, errorCode: 'delivery_stalled' },
        'stalled fan-out batch re-driven',
      );
      deps.telemetry.trackEvent('notification.redrive', { announcementId, rows: taken.length });
    }
  }
  return result;
}

/**
 * The stalled rows by the invocation that held them: a claim sets one lease on all of a batch's
 * rows and each renewal moves them together, so rows of one announcement under one lease are one
 * dead batch's, and their users' range stays inside that batch's range (never spanning batches
 * between two dead ones, whose messages may still be on their way).
 */
function byHolder(rows: readonly StalledDelivery[]): StalledDelivery[][] {
  const grouped = new Map<string, StalledDelivery[]>();
  for (const row of rows) {
    const holder = `${row.announcementId}\n${row.claimedUntil}`;
    const list = grouped.get(holder) ?? [];
    list.push(row);
    grouped.set(holder, list);
  }
  return [...grouped.values()];
}

/** The ledger's order of user ids (binary, as `ORDER BY userId` on both engines for these ASCII ids). */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
