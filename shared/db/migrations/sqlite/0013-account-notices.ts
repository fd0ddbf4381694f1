import type { SqlExecutor } from '../../database';

/**
 * Account notices (`shared/notifications/jobs/handle-notice-message.ts`): safety messages to a person about their
 * account or their child's, outside the announcement fan-out.
 * - AccountNotices: the outbox. One row per notice, written in the transaction of the change it
 *   reports (a child account's lock), so no notice is lost to a queue that is down: `enqueuedAt`
 *   stays NULL until its queue message was sent, and the queue-depth timer sends what is owed.
 *   Unique per kind, subject and the time of the event, so one lock is one notice. Ids only.
 * - AccountNoticeDeliveries: the notice's ledger, one row per notice × channel, claimed under a
 *   lease before sending (as `NotificationDeliveries` is), so a redelivered message never sends twice.
 * And an index that serves a child's activity (`GET /children/{id}/activity`): the audit rows about
 * one user, newest first, paged by (occurredAt, id).
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE AccountNotices (
      id TEXT NOT NULL PRIMARY KEY,
      kind TEXT NOT NULL CHECK (kind IN ('child_locked')),
      recipientUserId TEXT NOT NULL REFERENCES Users (id),
      subjectUserId TEXT NOT NULL REFERENCES Users (id),
      eventAt TEXT NOT NULL,
      createdAt TEXT NOT NULL,
      enqueuedAt TEXT NULL
    ) STRICT`);
  await tx.execute('CREATE UNIQUE INDEX UX_AccountNotices_kind_subject_eventAt ON AccountNotices (kind, subjectUserId, eventAt)');
  await tx.execute('CREATE INDEX IX_AccountNotices_enqueuedAt_createdAt ON AccountNotices (enqueuedAt, createdAt)');
  await tx.execute(`
    CREATE TABLE AccountNoticeDeliveries (
      noticeId TEXT NOT NULL REFERENCES AccountNotices (id),
      channel TEXT NOT NULL CHECK (channel IN ('push', 'email')),
      result TEXT NOT NULL CHECK (result IN ('pending', 'success', 'accepted', 'provider_error', 'hard_bounce', 'stale_token', 'failed')),
      attempts INTEGER NOT NULL CHECK (attempts >= 1),
      providerCode TEXT NULL,
      providerMessageId TEXT NULL,
      claimedUntil TEXT NULL,
      createdAt TEXT NOT NULL,
      updatedAt TEXT NOT NULL,
      PRIMARY KEY (noticeId, channel)
    ) STRICT`);
  await tx.execute('CREATE INDEX IX_AuditLog_subjectUserId_occurredAt_id ON AuditLog (subjectUserId, occurredAt, id)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP INDEX IX_AuditLog_subjectUserId_occurredAt_id');
  await tx.execute('DROP TABLE AccountNoticeDeliveries');
  await tx.execute('DROP TABLE AccountNotices');
}
