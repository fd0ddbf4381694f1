import { requireSection } from '../children/require-section';
import type { ListCursor } from '../db/keyset-page';
import { problem, type Problem } from '../errors/problem';
import type { User } from '../users/user';
import type { Announcement, AnnouncementStatus } from '../announcements/announcement';
import { canRead, isAdministrator } from '../announcements/announcement-access';
import type { AnnouncementDeps, AnnouncementResult } from './announcement-deps';
import { findAnnouncementById, listAnnouncements, type ListVisibility } from '../announcements/announcement-store';

/**
 * Reading announcements (contract section 9): administrators see all, adults published ones and
 * their own, children published ones, and only once their parent opened the `announcements`
 * section (otherwise the section guard answers 403, logs and audits the attempt). An announcement
 * the caller may not see is 404, exactly like one that does not exist.
 */

/** GET /api/v1/announcements/{id}. */
export async function getAnnouncement(caller: User, id: string, deps: AnnouncementDeps): Promise<AnnouncementResult> {
  const refused = await requireSection(caller, 'announcements', deps);
  if (refused) return { ok: false, problem: refused };
  const announcement = await findAnnouncementById(await deps.database.get(), id);
  if (!announcement || !canRead(caller, announcement)) {
    return { ok: false, problem: problem('not_found', { detail: 'No such announcement.' }) };
  }
  return { ok: true, announcement };
}

export interface AnnouncementPageRequest {
  status?: AnnouncementStatus;
  limit: number;
  after?: ListCursor;
}

/** GET /api/v1/announcements?status=&limit=&cursor=: the announcements the caller may see, newest first. */
export async function listVisibleAnnouncements(
  caller: User,
  page: AnnouncementPageRequest,
  deps: AnnouncementDeps,
): Promise<{ ok: true; items: Announcement[]; next: ListCursor | null } | { ok: false; problem: Problem }> {
  const refused = await requireSection(caller, 'announcements', deps);
  if (refused) return { ok: false, problem: refused };
  const result = await listAnnouncements(await deps.database.get(), {
    visibility: visibilityOf(caller),
    limit: page.limit,
    ...(page.status === undefined ? {} : { status: page.status }),
    ...(page.after === undefined ? {} : { after: page.after }),
  });
  return { ok: true, ...result };
}

function visibilityOf(caller: User): ListVisibility {
  if (caller.accountType !== 'adult') return { kind: 'published' };
  return isAdministrator(caller) ? { kind: 'all' } : { kind: 'publishedOrOwn', authorId: caller.id };
}
