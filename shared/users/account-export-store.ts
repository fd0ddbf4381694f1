import type { AuditDetails, AuditEvent } from '../audit/audit-event';
import type { Database } from '../db/database';
import { limitClause } from '../db/dialect';

/**
 * The reads of a person's data export (`export-account.ts`) that no other store has: every row of
 * theirs, newest first, at most `limit` of each kind.
 */

export interface ExportedSessionRow {
  id: string;
  createdAt: string;
  lastUsedAt: string;
  absoluteExpiresAt: string;
  endedAt: string | null;
  endReason: string | null;
  clientLabel: string;
}

/** Every session row of the user, open or ended (never the secret hash), newest first. */
export async function readAllUserSessions(db: Database, userId: string, limit: number): Promise<ExportedSessionRow[]> {
  return db.query<ExportedSessionRow>(
    `SELECT id, createdAt, lastUsedAt, absoluteExpiresAt, endedAt, endReason, clientLabel FROM Sessions
     WHERE userId = @userId ORDER BY createdAt DESC, id ${limitClause(db.dialect, '@limit')}`,
    { userId, limit },
  );
}

export interface ExportedDeviceRow {
  token: string;
  createdAt: string;
  updatedAt: string;
}

/** The user's devices (push tokens), oldest registration first. */
export async function readUserDevices(db: Database, userId: string): Promise<ExportedDeviceRow[]> {
  return db.query<ExportedDeviceRow>('SELECT token, createdAt, updatedAt FROM PushTokens WHERE userId = @userId ORDER BY createdAt, token', {
    userId,
  });
}

export interface ExportedAnnouncementRow {
  id: string;
  title: string;
  body: string;
  channels: string;
  status: string;
  rejectionReason: string | null;
  createdAt: string;
  updatedAt: string;
  submittedAt: string | null;
  reviewedAt: string | null;
  publishedAt: string | null;
}

/** The announcements the user wrote, newest first (who reviewed or published them is left out: other people). */
export async function readAuthoredAnnouncements(db: Database, authorId: string, limit: number): Promise<ExportedAnnouncementRow[]> {
  return db.query<ExportedAnnouncementRow>(
    `SELECT id, title, body, channels, status, rejectionReason, createdAt, updatedAt, submittedAt, reviewedAt, publishedAt
     FROM Announcements WHERE authorId = @authorId ORDER BY createdAt DESC, id DESC ${limitClause(db.dialect, '@limit')}`,
    { authorId, limit },
  );
}

export interface ChildOfParentRow {
  id: string;
  status: string;
  createdAt: string;
}

/** Every child of the parent, erased ones included (as tombstones), oldest first. */
export async function readChildrenOfParent(db: Database, parentId: string, limit: number): Promise<ChildOfParentRow[]> {
  return db.query<ChildOfParentRow>(
    `SELECT id, status, createdAt FROM Users WHERE parentId = @parentId ORDER BY createdAt, id ${limitClause(db.dialect, '@limit')}`,
    { parentId, limit },
  );
}

interface AuditRow extends Omit<AuditEvent, 'details'> {
  details: string | null;
}

/**
 * The audit rows that name the user, as actor or as subject, newest first, as they are stored:
 * ids and facts only, by design. Served by the actor index (migration 0015) and the subject index
 * (0013).
 */
export async function readAuditRowsNaming(db: Database, userId: string, limit: number): Promise<AuditEvent[]> {
  const rows = await db.query<AuditRow>(
    `SELECT id, occurredAt, eventType, outcome, actorUserId, subjectUserId, targetType, targetId, reason, traceId, details
     FROM AuditLog WHERE actorUserId = @userId OR subjectUserId = @userId
     ORDER BY occurredAt DESC, id DESC ${limitClause(db.dialect, '@limit')}`,
    { userId, limit },
  );
  return rows.map((row) => ({ ...row, details: row.details === null ? null : (JSON.parse(row.details) as AuditDetails) }));
}

export interface ExportedDeliveryRow {
  announcementId: string;
  channel: string;
  result: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * The user's rows of the announcements' delivery ledger, newest first: which announcement went to
 * them by which channel, with what result (not the provider's ids or codes: the provider's
 * bookkeeping, no fact about the person). Read through the announcements, whose ids lead the
 * ledger's key: one seek per announcement instead of a scan of the fan-out's largest table.
 */
export async function readNotificationDeliveries(db: Database, userId: string, limit: number): Promise<ExportedDeliveryRow[]> {
  return db.query<ExportedDeliveryRow>(
    `SELECT d.announcementId, d.channel, d.result, d.createdAt, d.updatedAt
     FROM Announcements a INNER JOIN NotificationDeliveries d ON d.announcementId = a.id AND d.userId = @userId
     ORDER BY d.createdAt DESC, d.announcementId DESC, d.channel ${limitClause(db.dialect, '@limit')}`,
    { userId, limit },
  );
}

export interface ExportedNoticeRow {
  id: string;
  kind: string;
  subjectUserId: string;
  eventAt: string;
  createdAt: string;
}

/** The account notices sent to the user (a child's lock, to its parent), newest first. */
export async function readAccountNotices(db: Database, recipientUserId: string, limit: number): Promise<ExportedNoticeRow[]> {
  return db.query<ExportedNoticeRow>(
    `SELECT id, kind, subjectUserId, eventAt, createdAt FROM AccountNotices
     WHERE recipientUserId = @recipientUserId ORDER BY createdAt DESC, id DESC ${limitClause(db.dialect, '@limit')}`,
    { recipientUserId, limit },
  );
}

export interface ExportedNoticeDeliveryRow {
  noticeId: string;
  channel: string;
  result: string;
  createdAt: string;
  updatedAt: string;
}

/** The ledger rows of the account notices sent to the user, newest first (no provider ids). */
export async function readAccountNoticeDeliveries(db: Database, recipientUserId: string, limit: number): Promise<ExportedNoticeDeliveryRow[]> {
  return db.query<ExportedNoticeDeliveryRow>(
    `SELECT d.noticeId, d.channel, d.result, d.createdAt, d.updatedAt
     FROM AccountNotices n INNER JOIN AccountNoticeDeliveries d ON d.noticeId = n.id
     WHERE n.recipientUserId = @recipientUserId
     ORDER BY d.createdAt DESC, d.noticeId DESC, d.channel ${limitClause(db.dialect, '@limit')}`,
    { recipientUserId, limit },
  );
}

/** When the address hard-bounced, if it is on the bounce list (`email` in its stored, canonical form). */
export async function readEmailHardBounce(db: Database, email: string): Promise<string | null> {
  const [row] = await db.query<{ bouncedAt: string }>('SELECT bouncedAt FROM EmailHardBounces WHERE email = @email', { email });
  return row?.bouncedAt ?? null;
}

/** When the number last sent STOP, if that STOP is in force (no later START); `phone` in E.164. */
export async function readSmsOptOut(db: Database, phone: string): Promise<string | null> {
  const [row] = await db.query<{ optedOutAt: string }>(
    `SELECT optedOutAt FROM SmsOptOuts
     WHERE phone = @phone AND optedOutAt IS NOT NULL AND (optedInAt IS NULL OR optedInAt < optedOutAt)`,
    { phone },
  );
  return row?.optedOutAt ?? null;
}
