import type { DatabaseProvider } from '../db/lazy-database';
import type { Logger } from '../logging/logger';
import type { FanoutQueue } from '../messages/fanout-queue';
import type { Clock } from '../ports/clock';
import { claimFanout, findOwedFanouts, markFanoutEnqueued, releaseFanoutClaim } from '../announcements/announcement-store';

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

/**
 * How long a claim on an owed fan-out's enqueue holds (`claimFanout`): far longer than a request's
 * time budget, so only a holder that stopped without releasing it (a crash) loses it.
 */
export const FANOUT_CLAIM_LEASE_MS = 60 * 1000;

/**
 * Claims the enqueue of a published announcement's owed fan-out, as of `now`, so that of
 * concurrent publish retries (and the catch-up) exactly one enqueues.
 * @returns false when it is enqueued already or someone else is enqueueing it.
 */
export async function claimOwedFanout(announcementId: string, now: Date, deps: Pick<FanoutEnqueueDeps, 'database'>): Promise<boolean> {
  const staleBefore = new Date(now.getTime() - FANOUT_CLAIM_LEASE_MS).toISOString();
  return claimFanout(await deps.database.get(), announcementId, now.toISOString(), staleBefore);
}

/**
 * `enqueueFanout` under a claim the caller took at `claimedAt` (the publish step's own, or
 * `claimOwedFanout`'s). When the enqueue fails the claim is given back, so publishing again may
 * retry at once; should that fail too, the claim's lease runs out instead.
 */
export async function enqueueClaimedFanout(announcementId: string, claimedAt: string, deps: FanoutEnqueueDeps): Promise<string> {
  try {
    return await enqueueFanout(announcementId, deps);
  } catch (error) {
    // The enqueue's own error is the one worth reporting; a failed release only delays a retry.
    await releaseFanoutClaim(await deps.database.get(), announcementId, claimedAt).catch(() => undefined);
    throw error;
  }
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
  let enqueued = 0;
  for (const { id } of owed) {
    const claimedAt = deps.clock.now();
    // A publish retried right now is enqueueing it: leave it to that one.
    if (!(await claimOwedFanout(id, claimedAt, deps))) continue;
    await enqueueClaimedFanout(id, claimedAt.toISOString(), deps);
    deps.logger.warn({ announcementId: id }, 'owed fan-out enqueued by the catch-up');
    enqueued += 1;
  }
  return enqueued;
}
