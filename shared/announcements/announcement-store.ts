import type { Database, SqlExecutor } from '../db/database';
import { limitClause } from '../db/dialect';
import { toPage, type ListCursor } from '../db/keyset-page';
import {
  ANNOUNCEMENT_CHANNELS,
  type Announcement,
  type AnnouncementChannel,
  type AnnouncementStatus,
} from './announcement';

/** The `Announcements` table. Writes take an executor so they join the caller's transaction. */

const COLUMNS =
  'id, authorId, title, body, channels, status, rejectionReason, createdAt, updatedAt, submittedAt, reviewedAt, reviewedBy, publishedAt, publishedBy, fanoutEnqueuedAt';

interface AnnouncementRow extends Omit<Announcement, 'channels'> {
  channels: string;
}

function toAnnouncement(row: AnnouncementRow): Announcement {
  const parsed: unknown = JSON.parse(row.channels);
  const channels = Array.isArray(parsed)
    ? parsed.filter((c): c is AnnouncementChannel => ANNOUNCEMENT_CHANNELS.includes(c as AnnouncementChannel))
    : [];
  return { ...row, channels };
}

export async function insertAnnouncement(tx: SqlExecutor, announcement: Announcement): Promise<void> {
  await tx.execute(
    `INSERT INTO Announcements (${COLUMNS})
     VALUES (@id, @authorId, @title, @body, @channels, @status, @rejectionReason, @createdAt, @updatedAt, @submittedAt,
             @reviewedAt, @reviewedBy, @publishedAt, @publishedBy, @fanoutEnqueuedAt)`,
    { ...announcement, channels: JSON.stringify(announcement.channels) },
  );
}

/** The announcement with this id, whoever may see it (the caller decides). */
export async function findAnnouncementById(db: SqlExecutor, id: string): Promise<Announcement | undefined> {
  const rows = await db.query<AnnouncementRow>(`SELECT ${COLUMNS} FROM Announcements WHERE id = @id`, { id });
  return rows[0] ? toAnnouncement(rows[0]) : undefined;
}

export interface ContentChange {
  title?: string;
  body?: string;
  channels?: readonly AnnouncementChannel[];
}

/**
 * Edits the content of an announcement that is still `from` (so a concurrent step wins cleanly).
 * @returns false when its status moved meanwhile.
 */
export async function updateAnnouncementContent(
  tx: SqlExecutor,
  id: string,
  from: AnnouncementStatus,
  change: ContentChange,
  now: string,
): Promise<boolean> {
  // Only fixed column names go into the text; the values are parameters.
  const sets = ['updatedAt = @now'];
  if (change.title !== undefined) sets.push('title = @title');
  if (change.body !== undefined) sets.push('body = @body');
  if (change.channels !== undefined) sets.push('channels = @channels');
  const changed = await tx.execute(`UPDATE Announcements SET ${sets.join(', ')} WHERE id = @id AND status = @from`, {
    id,
    from,
    now,
    ...(change.title === undefined ? {} : { title: change.title }),
    ...(change.body === undefined ? {} : { body: change.body }),
    ...(change.channels === undefined ? {} : { channels: JSON.stringify(change.channels) }),
  });
  return changed === 1;
}

/** `from` → `queued`; a past rejection reason is cleared. Resolves false when the status moved meanwhile. */
export async function markSubmitted(tx: SqlExecutor, id: string, from: AnnouncementStatus, now: string): Promise<boolean> {
  const changed = await tx.execute(
    `UPDATE Announcements SET status = 'queued', submittedAt = @now, rejectionReason = NULL, updatedAt = @now
     WHERE id = @id AND status = @from`,
    { id, from, now },
  );
  return changed === 1;
}

/** `queued` → `approved` or `rejected` (with the reason), by `reviewerId`. Resolves false when the status moved meanwhile. */
export async function markReviewed(
  tx: SqlExecutor,
  id: string,
  decision: { status: 'approved' | 'rejected'; reviewerId: string; rejectionReason: string | null },
  now: string,
): Promise<boolean> {
  const changed = await tx.execute(
    `UPDATE Announcements
     SET status = @status, reviewedAt = @now, reviewedBy = @reviewerId, rejectionReason = @rejectionReason, updatedAt = @now
     WHERE id = @id AND status = 'queued'`,
    { id, now, ...decision },
  );
  return changed === 1;
}

/**
 * `approved` → `published`, by `publisherId`, claiming the fan-out's enqueue (`claimFanout`) for
 * this step at `now`. Resolves false when the status moved meanwhile.
 */
export async function markPublished(tx: SqlExecutor, id: string, publisherId: string, now: string): Promise<boolean> {
  const changed = await tx.execute(
    `UPDATE Announcements
     SET status = 'published', publishedAt = @now, publishedBy = @publisherId, updatedAt = @now, fanoutClaimedAt = @now
     WHERE id = @id AND status = 'approved'`,
    { id, publisherId, now },
  );
  return changed === 1;
}

/**
 * Claims the enqueue of a published announcement's owed fan-out, as of `now`: a compare-and-set
 * that exactly one of concurrent callers wins, on every engine (the UPDATE re-reads the row under
 * its write lock). Taken while nobody holds the claim, or the holder's is older than `staleBefore`
 * (it stopped without releasing it).
 * @returns false when the fan-out is enqueued already, or someone else is enqueueing it.
 */
export async function claimFanout(db: SqlExecutor, id: string, now: string, staleBefore: string): Promise<boolean> {
  const changed = await db.execute(
    `UPDATE Announcements SET fanoutClaimedAt = @now
     WHERE id = @id AND status = 'published' AND fanoutEnqueuedAt IS NULL
       AND (fanoutClaimedAt IS NULL OR fanoutClaimedAt < @staleBefore)`,
    { id, now, staleBefore },
  );
  return changed === 1;
}

/** Gives up the claim taken at `claimedAt` (its enqueue failed), so publishing again may retry at once. */
export async function releaseFanoutClaim(db: SqlExecutor, id: string, claimedAt: string): Promise<void> {
  await db.execute(
    'UPDATE Announcements SET fanoutClaimedAt = NULL WHERE id = @id AND fanoutClaimedAt = @claimedAt AND fanoutEnqueuedAt IS NULL',
    { id, claimedAt },
  );
}

/** Records that the fan-out message is on the queue (the first time only). */
export async function markFanoutEnqueued(db: SqlExecutor, id: string, now: string): Promise<void> {
  await db.execute(
    `UPDATE Announcements SET fanoutEnqueuedAt = @now WHERE id = @id AND status = 'published' AND fanoutEnqueuedAt IS NULL`,
    { id, now },
  );
}

/** Which announcements a list may show: everything, published ones, or published ones plus one author's own. */
export type ListVisibility = { kind: 'all' } | { kind: 'published' } | { kind: 'publishedOrOwn'; authorId: string };

export interface AnnouncementListQuery {
  visibility: ListVisibility;
  status?: AnnouncementStatus;
  limit: number;
  /** The last item of the previous page; the list runs newest first. */
  after?: ListCursor;
}

/**
 * One page of announcements, newest first (createdAt, then id, descending), and the cursor of
 * the next page.
 */
export async function listAnnouncements(db: Database, query: AnnouncementListQuery): Promise<{ items: Announcement[]; next: ListCursor | null }> {
  const conditions: string[] = [];
  const params: Record<string, string | number> = { limit: query.limit + 1 };
  if (query.visibility.kind === 'published') conditions.push(`status = 'published'`);
  if (query.visibility.kind === 'publishedOrOwn') {
    conditions.push(`(status = 'published' OR authorId = @authorId)`);
    params.authorId = query.visibility.authorId;
  }
  if (query.status !== undefined) {
    conditions.push('status = @status');
    params.status = query.status;
  }
  if (query.after) {
    conditions.push('(createdAt < @afterCreatedAt OR (createdAt = @afterCreatedAt AND id < @afterId))');
    params.afterCreatedAt = query.after.createdAt;
    params.afterId = query.after.id;
  }
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  const rows = await db.query<AnnouncementRow>(
    `SELECT ${COLUMNS} FROM Announcements ${where} ORDER BY createdAt DESC, id DESC ${limitClause(db.dialect, '@limit')}`,
    params,
  );
  const { items, next } = toPage(rows, query.limit, (row) => ({ createdAt: row.createdAt, id: row.id }));
  return { items: items.map(toAnnouncement), next };
}

/**
 * The approval queue: how many announcements are `queued` and since when the oldest waits, read
 * in one statement so the two agree; plus the id of the oldest, for the backlog warning.
 */
export async function readApprovalQueue(
  db: Database,
): Promise<{ depth: number; oldestSubmittedAt: string | null; oldestId: string | null }> {
  const [summary] = await db.query<{ depth: number; oldestSubmittedAt: string | null }>(
    `SELECT COUNT(*) AS depth, MIN(submittedAt) AS oldestSubmittedAt FROM Announcements WHERE status = 'queued'`,
  );
  const depth = Number(summary?.depth ?? 0);
  if (depth === 0 || !summary?.oldestSubmittedAt) return { depth, oldestSubmittedAt: null, oldestId: null };
  const [oldest] = await db.query<{ id: string }>(
    `SELECT id FROM Announcements WHERE status = 'queued' ORDER BY submittedAt, id ${limitClause(db.dialect, '@limit')}`,
    { limit: 1 },
  );
  return { depth, oldestSubmittedAt: summary.oldestSubmittedAt, oldestId: oldest?.id ?? null };
}

/**
 * Published announcements whose fan-out message was never enqueued (the queue was down, or the
 * process stopped between the commit and the enqueue), published at or before `publishedBefore`.
 */
export async function findOwedFanouts(db: Database, publishedBefore: string, limit: number): Promise<{ id: string }[]> {
  return db.query<{ id: string }>(
    `SELECT id FROM Announcements
     WHERE status = 'published' AND fanoutEnqueuedAt IS NULL AND publishedAt <= @publishedBefore
     ORDER BY publishedAt, id ${limitClause(db.dialect, '@limit')}`,
    { publishedBefore, limit },
  );
}
