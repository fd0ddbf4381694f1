import type { AuthDeps } from '../auth/auth-deps';
import type { Problem } from '../errors/problem';
import type { FanoutQueue } from '../messages/fanout-queue';
import type { Announcement } from '../announcements/announcement';

/** The ports the announcement use cases take: the authentication ports (the section guard needs them) and the fan-out queue. */
export interface AnnouncementDeps extends AuthDeps {
  fanoutQueue: FanoutQueue;
}

export type AnnouncementResult = { ok: true; announcement: Announcement } | { ok: false; problem: Problem };
