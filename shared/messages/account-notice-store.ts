import type { Database, SqlExecutor } from '../db/database';
import { limitClause } from '../db/dialect';
import type { NoticeKind } from './notice-message';

/**
 * The outbox of account notices (migration `0013-account-notices`): `AccountNotices`, written in
 * the transaction of the change a notice reports and read by the catch-up and the sender. Its
 * deliveries' ledger, `AccountNoticeDeliveries`, is the notifications subsystem's
 * (`shared/notifications/ledger/notice-deliveries.ts`). Text both engines accept; timestamps are ISO 8601 UTC
 * from the app. Ids only: names, addresses and tokens are read from their own tables at send time.
 */

export interface AccountNotice {
  id: string;
  kind: NoticeKind;
  /** Who is told: the parent. */
  recipientUserId: string;
  /** Whom it is about: the child. */
  subjectUserId: string;
  /** When the reported change happened (the lock's `lockedAt`). */
  eventAt: string;
  createdAt: string;
  enqueuedAt: string | null;
}

/** Records a notice as owed, in the transaction of the change it reports. */
export async function insertAccountNotice(tx: SqlExecutor, notice: Omit<AccountNotice, 'enqueuedAt'>): Promise<void> {
  await tx.execute(
    `INSERT INTO AccountNotices (id, kind, recipientUserId, subjectUserId, eventAt, createdAt, enqueuedAt)
     VALUES (@id, @kind, @recipientUserId, @subjectUserId, @eventAt, @createdAt, NULL)`,
    notice,
  );
}

/** Notes that the notice's queue message was sent (the first time only). */
export async function markNoticeEnqueued(db: SqlExecutor, id: string, now: string): Promise<void> {
  await db.execute('UPDATE AccountNotices SET enqueuedAt = @now WHERE id = @id AND enqueuedAt IS NULL', { id, now });
}

/**
 * Makes a notice owed again (its message's tries ran out with deliveries still owed): the catch-up
 * enqueues it once more. @returns how many rows it changed (0: no such notice).
 */
export async function markNoticeOwed(db: SqlExecutor, id: string): Promise<number> {
  return db.execute('UPDATE AccountNotices SET enqueuedAt = NULL WHERE id = @id', { id });
}

/** Notices recorded at or before `before` whose queue message was never sent, oldest first. */
export async function findOwedNotices(db: Database, before: string, limit: number): Promise<Pick<AccountNotice, 'id' | 'kind'>[]> {
  return db.query<Pick<AccountNotice, 'id' | 'kind'>>(
    `SELECT id, kind FROM AccountNotices WHERE enqueuedAt IS NULL AND createdAt <= @before
     ORDER BY createdAt, id ${limitClause(db.dialect, '@limit')}`,
    { before, limit },
  );
}

export async function findNoticeById(db: SqlExecutor, id: string): Promise<AccountNotice | undefined> {
  const [row] = await db.query<AccountNotice>(
    'SELECT id, kind, recipientUserId, subjectUserId, eventAt, createdAt, enqueuedAt FROM AccountNotices WHERE id = @id',
    { id },
  );
  return row && { ...row, eventAt: toIso(row.eventAt), createdAt: toIso(row.createdAt), enqueuedAt: row.enqueuedAt === null ? null : toIso(row.enqueuedAt) };
}

/** Both adapters return ISO strings; re-serialised into `toISOString`'s exact form. */
function toIso(value: string): string {
  return new Date(value).toISOString();
}
