import type { Database } from '../db/database';
import type { DatabaseProvider } from '../db/lazy-database';
import type { Logger } from '../logging/logger';
import type { Clock } from '../ports/clock';
import type { Telemetry } from '../telemetry/telemetry';
import { readApprovalQueue } from '../announcements/announcement-store';

/**
 * The approval queue depth (contract sections 8 and 11): the count of `queued` announcements and
 * the age of the oldest, as the `approval.queue_depth` metric and event, after every workflow step
 * and on the timer's schedule. The spec's warning alert fires past 48 hours in the queue.
 */

export const QUEUE_BACKLOG_WARN_HOURS = 48;

const HOUR_MS = 60 * 60 * 1000;

export interface QueueDepth {
  depth: number;
  /** Hours the oldest queued announcement has waited, to two decimals; 0 when the queue is empty. */
  oldestQueuedAgeHours: number;
  oldestAnnouncementId: string | null;
}

/** Reads the queue's depth and the age of its oldest entry at `now`. */
export async function measureQueueDepth(db: Database, now: Date): Promise<QueueDepth> {
  const queue = await readApprovalQueue(db);
  if (queue.oldestSubmittedAt === null) return { depth: queue.depth, oldestQueuedAgeHours: 0, oldestAnnouncementId: null };
  const ageMs = Math.max(0, now.getTime() - Date.parse(queue.oldestSubmittedAt));
  return {
    depth: queue.depth,
    oldestQueuedAgeHours: Math.round((ageMs / HOUR_MS) * 100) / 100,
    oldestAnnouncementId: queue.oldestId,
  };
}

/** Sends the depth as the `approval.queue_depth` event and gauge. */
export function reportQueueDepth(depth: QueueDepth, telemetry: Telemetry): void {
  telemetry.trackEvent('approval.queue_depth', { depth: depth.depth, oldestQueuedAgeHours: depth.oldestQueuedAgeHours });
  telemetry.trackMetric('approval.queue_depth', depth.depth);
}

export interface QueueDepthDeps {
  database: DatabaseProvider;
  clock: Clock;
  telemetry: Telemetry;
  logger: Logger;
}

/**
 * The timer's sample: measures and reports the depth, and writes a warn line when the oldest
 * queued announcement has waited more than 48 hours (the spec's "approval queue backlog").
 */
export async function sampleQueueDepth(deps: QueueDepthDeps): Promise<QueueDepth> {
  const depth = await measureQueueDepth(await deps.database.get(), deps.clock.now());
  reportQueueDepth(depth, deps.telemetry);
  const fields = { depth: depth.depth, oldestQueuedAgeHours: depth.oldestQueuedAgeHours };
  if (depth.oldestQueuedAgeHours > QUEUE_BACKLOG_WARN_HOURS) {
    deps.logger.warn(
      { ...fields, oldestAnnouncementId: depth.oldestAnnouncementId, thresholdHours: QUEUE_BACKLOG_WARN_HOURS },
      'approval queue backlog: an announcement has waited more than 48 hours',
    );
  } else {
    deps.logger.debug(fields, 'approval queue depth sampled');
  }
  return depth;
}
