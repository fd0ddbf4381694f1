import { appServices, type AppServices } from '../composition-root';
import type { AnnouncementDeps } from '../announcement-workflow/announcement-deps';

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
