import { appServices, type AppServices } from '../composition-root';
import type { AuthDeps } from '../auth/auth-deps';
import type { Problem } from '../errors/problem';
import type { FanoutQueue } from '../messages/fanout-queue';
import type { Announcement } from '../announcements/announcement';

/** The ports the announcement use cases take: the authentication ports (the section guard needs them) and the fan-out queue. */
export interface AnnouncementDeps extends AuthDeps {
  fanoutQueue: FanoutQueue;
}

export type AnnouncementResult = { ok: true; announcement: Announcement } | { ok: false; problem: Problem };

/** The announcement ports out of the process's services. */
export function announcementDepsOf(services: Pick<AppServices, 'auth' | 'fanoutQueue'>): AnnouncementDeps {
  return { ...services.auth, fanoutQueue: services.fanoutQueue };
}

let processDeps: AnnouncementDeps | undefined;

/** The process's announcement ports (`announcementDepsOf(appServices())`), built on the first request that needs them. */
export function appAnnouncementDeps(): AnnouncementDeps {
  processDeps ??= announcementDepsOf(appServices());
  return processDeps;
}
