import { problem, type Problem } from '../errors/problem';
import type { User } from '../users/user';
import type { Announcement } from '../announcements/announcement';
import { canRead, isWriter } from '../announcements/announcement-access';
import type { AnnouncementDeps, AnnouncementResult } from './announcement-deps';
import type { CreateAnnouncementInput, UpdateAnnouncementInput } from './announcement-request-schemas';
import { findAnnouncementById, insertAnnouncement, updateAnnouncementContent } from '../announcements/announcement-store';
import { isEditable } from '../announcements/announcement-transitions';
import { announceStep, auditStep } from './workflow-step';

const refused = (detail: string): { ok: false; problem: Problem } => ({ ok: false, problem: problem('forbidden', { detail }) });
const notFound = (): { ok: false; problem: Problem } => ({ ok: false, problem: problem('not_found', { detail: 'No such announcement.' }) });

/**
 * POST /api/v1/announcements: an author or administrator writes a draft. The row and its
 * `announcement_draft_created` audit row commit together.
 */
export async function createAnnouncement(caller: User, input: CreateAnnouncementInput, deps: AnnouncementDeps): Promise<AnnouncementResult> {
  if (!isWriter(caller)) return refused('Only authors and administrators write announcements.');
  const now = deps.clock.now().toISOString();
  const announcement: Announcement = {
    id: deps.random.uuid(),
    authorId: caller.id,
    title: input.title,
    body: input.body,
    channels: input.channels,
    status: 'draft',
    rejectionReason: null,
    createdAt: now,
    updatedAt: now,
    submittedAt: null,
    reviewedAt: null,
    reviewedBy: null,
    publishedAt: null,
    publishedBy: null,
    fanoutEnqueuedAt: null,
  };
  const step = {
    auditEvent: 'announcement_draft_created',
    logMessage: 'announcement draft created',
    actor: caller,
    announcement,
    status: 'draft',
    details: { channels: announcement.channels.join(',') },
  } as const;
  const db = await deps.database.get();
  await db.transaction(async (tx) => {
    await insertAnnouncement(tx, announcement);
    await auditStep(tx, step, deps);
  });
  await announceStep(step, deps);
  return { ok: true, announcement };
}

/**
 * PATCH /api/v1/announcements/{id}: its author edits title, body and/or channels while it is a
 * draft or rejected; the status stays. Not a workflow step: no audit row (contract section 9),
 * one info line.
 */
export async function updateAnnouncement(
  caller: User,
  id: string,
  change: UpdateAnnouncementInput,
  deps: AnnouncementDeps,
): Promise<AnnouncementResult> {
  if (!isWriter(caller)) return refused('Only authors and administrators write announcements.');
  const db = await deps.database.get();
  const current = await findAnnouncementById(db, id);
  if (!current || !canRead(caller, current)) return notFound();
  if (current.authorId !== caller.id) return refused('Only its author edits an announcement.');
  const invalid = (): AnnouncementResult => {
    deps.logger.info({ announcementId: id, action: 'update', currentStatus: current.status }, 'announcement transition refused');
    return { ok: false, problem: problem('invalid_transition', { detail: 'Only drafts and rejected announcements can be edited.' }) };
  };
  if (!isEditable(current.status)) return invalid();
  const now = deps.clock.now().toISOString();
  const content = {
    ...(change.title === undefined ? {} : { title: change.title }),
    ...(change.body === undefined ? {} : { body: change.body }),
    ...(change.channels === undefined ? {} : { channels: change.channels }),
  };
  if (!(await db.transaction((tx) => updateAnnouncementContent(tx, id, current.status, content, now)))) return invalid();
  deps.logger.info(
    {
      announcementId: id,
      role: caller.role,
      status: current.status,
      changedFields: Object.keys(content).join(','),
    },
    'announcement updated',
  );
  return { ok: true, announcement: { ...current, ...content, updatedAt: now } };
}
