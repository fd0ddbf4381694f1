import type { SqlExecutor } from '../db/database';
import type { DatabaseProvider } from '../db/lazy-database';
import type { Logger } from '../logging/logger';
import type { Clock } from '../ports/clock';
import type { Random } from '../ports/random';
import { findOwedNotices, insertAccountNotice, markNoticeEnqueued } from './account-notice-store';
import type { NoticeKind } from './notice-message';
import type { NoticeQueue } from './notice-queue';

/**
 * Account notices are an outbox: the notice is a row written in the transaction of the change it
 * reports (a child account's lock), and its queue message is sent after the commit. A queue that
 * is down changes nothing for the request that caused the notice; the row stays owed and the
 * queue-depth timer's catch-up sends it. Sending a message twice is harmless: the notice's ledger
 * never delivers on a channel twice.
 */

export interface NoticeEnqueueDeps {
  database: Pick<DatabaseProvider, 'get'>;
  clock: Clock;
  logger: Logger;
  /** Absent where nothing may enqueue (some tests): the catch-up sends the notice. */
  noticeQueue?: NoticeQueue | undefined;
}

/**
 * Records the notice that `subjectUserId`'s account was locked, for `recipientUserId` (the parent).
 * Call it only from the statement that changed the account (one lock, one notice); pass the
 * transaction's `tx`.
 * @returns the notice to enqueue after the commit.
 */
export async function recordChildLockedNotice(
  tx: SqlExecutor,
  lock: { parentId: string; childId: string; lockedAt: string },
  deps: { clock: Clock; random: Random },
): Promise<{ id: string; kind: NoticeKind }> {
  const notice = { id: deps.random.uuid(), kind: 'child_locked' as const };
  await insertAccountNotice(tx, {
    ...notice,
    recipientUserId: lock.parentId,
    subjectUserId: lock.childId,
    eventAt: lock.lockedAt,
    createdAt: deps.clock.now().toISOString(),
  });
  return notice;
}

/**
 * Puts a recorded notice on the queue and notes it; never throws. When the queue (or the note)
 * fails, a warn line says so (the notice id and the error code only) and the catch-up sends it.
 * @returns whether the message was sent.
 */
export async function enqueueNotice(notice: { id: string; kind: NoticeKind }, deps: NoticeEnqueueDeps): Promise<boolean> {
  try {
    if (!deps.noticeQueue) throw new Error('no notice queue');
    await deps.noticeQueue.enqueue({ notice });
  } catch {
    deps.logger.warn({ noticeId: notice.id, kind: notice.kind, errorCode: 'notice_enqueue_failed' }, 'account notice owed: the queue took no message');
    return false;
  }
  try {
    await markNoticeEnqueued(await deps.database.get(), notice.id, deps.clock.now().toISOString());
  } catch {
    // The message is on its way; the catch-up may send it once more, which delivers nothing twice.
    deps.logger.warn({ noticeId: notice.id, kind: notice.kind, errorCode: 'notice_mark_failed' }, 'account notice enqueued but not marked');
  }
  deps.logger.info({ noticeId: notice.id, kind: notice.kind }, 'account notice enqueued');
  return true;
}

/** How long the change's own request has to enqueue its notice before the catch-up steps in. */
export const OWED_NOTICE_GRACE_MS = 60 * 1000;
const OWED_NOTICE_BATCH = 50;

/**
 * The catch-up, run by the queue-depth timer: enqueues the notices recorded over a minute ago
 * whose message was never sent, with a warn line each. Throws when the queue is still down (the
 * next run retries).
 * @returns how many notices it enqueued.
 */
export async function enqueueOwedNotices(deps: NoticeEnqueueDeps & { noticeQueue: NoticeQueue }): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - OWED_NOTICE_GRACE_MS).toISOString();
  const db = await deps.database.get();
  const owed = await findOwedNotices(db, before, OWED_NOTICE_BATCH);
  for (const notice of owed) {
    await deps.noticeQueue.enqueue({ notice: { id: notice.id, kind: notice.kind } });
    await markNoticeEnqueued(db, notice.id, deps.clock.now().toISOString());
    deps.logger.warn({ noticeId: notice.id, kind: notice.kind }, 'owed account notice enqueued by the catch-up');
  }
  return owed.length;
}
