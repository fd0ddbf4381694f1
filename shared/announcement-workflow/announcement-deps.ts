import type { Problem } from '../errors/problem';
import type { FanoutQueue } from '../messages/fanout-queue';
import type { SectionGuardDeps } from '../children/require-section';
import type { Telemetry } from '../telemetry/telemetry';
import type { Announcement } from '../announcements/announcement';

/**
 * The ports the announcement use cases take: the section guard's (database, clock, random, logger), the
 * telemetry the approval queue's depth is reported to, and the fan-out queue.
 */
export interface AnnouncementDeps extends SectionGuardDeps {
  telemetry: Telemetry;
  fanoutQueue: FanoutQueue;
}

export type AnnouncementResult = { ok: true; announcement: Announcement } | { ok: false; problem: Problem };
