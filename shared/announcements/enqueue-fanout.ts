import type { DatabaseProvider } from '../db/lazy-database';
import type { Logger } from '../logging/logger';
import type { FanoutQueue } from '../notifications/fanout-queue';
import type { Clock } from '../ports/clock';
import { findOwedFanouts, markFanoutEnqueued } from './announcement-store';

/**
 * Enqueueing the fan-out of a published announcement (contract section 10: base64 JSON
 * `{ announcementId }` on `notification-fanout`) and recording that it happened. Publishing
 * commits first and enqueues after (see take-workflow-step.ts), so a fan-out can be owed: the
 * administrator's retry or the catch-up below pays it. Enqueueing twice is harmless, because the
 * fan-out's delivery ledger never sends to a recipient on a channel twice.
 */

export interface FanoutEnqueueDeps {
  database: DatabaseProvider;
  clock: Clock;
  fanoutQueue: FanoutQueue;
}

/**
 * Puts the announcement's fan-out message on the queue and sets `fanoutEnqueuedAt`. Throws
 * `DependencyUnavailableError('queue')` when the queue cannot be reached.
 * @returns when it was enqueued.
 */
export async function enqueueFanout(announcementId: string, deps: FanoutEnqueueDeps): Promise<string> {
  await deps.fanoutQueue.enqueue({ announcementId });
  const now = deps.clock.now().toISOString();
  await markFanoutEnqueued(await deps.database.get(), announcementId, now);
  return now;
}

/** How long a publish may take between its commit and its enqueue before the catch-up steps in. */
export const OWED_FANOUT_GRACE_MS = 2 * 60 * 1000;
const OWED_FANOUT_BATCH = 50;

/**
 * The catch-up, run by the queue-depth timer: enqueues the fan-out of published announcements
 * whose publish committed more than two minutes ago without enqueueing, with a warn line each
 * (something failed before). Throws when the queue is still unreachable; the next run retries.
 * @returns how many fan-outs it enqueued.
 */
export async function enqueueOwedFanouts(deps: FanoutEnqueueDeps & { logger: Logger }): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - OWED_FANOUT_GRACE_MS).toISOString();
  const owed = await findOwedFanouts(await deps.database.get(), before, OWED_FANOUT_BATCH);
  for (const { id } of owed) {
    await enqueueFanout(id, deps);
    deps.logger.warn({ announcementId: id }, 'owed fan-out enqueued by the catch-up');
  }
  return owed.length;
}
