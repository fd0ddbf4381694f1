import type { SqlExecutor } from '../../database';

/**
 * Account notices (`shared/notifications/jobs/handle-notice-message.ts`; see the SQLite migration): the outbox of
 * safety notices (one row per notice, written with the change it reports, `enqueuedAt` NULL until
 * its queue message was sent) and their ledger (one row per notice × channel, claimed under a
 * lease before sending). Ids are nvarchar like the parameters the driver sends (app-made UUIDs,
 * like every other id column).
 * The AuditLog index serves a child's activity (the rows about one user, newest first, paged by
 * (occurredAt, id)) and covers its columns, so a page reads no row of the clustered index. It is
 * built online (Azure SQL, and SQL Server's Developer and Enterprise editions): the audit table is
 * the largest there is and every request writes to it, so an offline build would hold its writers
 * (every sign-in) for the whole build. No column of it is a LOB (`details`, nvarchar(max), is left out).
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE dbo.AccountNotices (
      id nvarchar(64) NOT NULL CONSTRAINT PK_AccountNotices PRIMARY KEY,
      kind nvarchar(32) NOT NULL CONSTRAINT CK_AccountNotices_kind CHECK (kind IN (N'child_locked')),
      recipientUserId nvarchar(64) NOT NULL CONSTRAINT FK_AccountNotices_recipient REFERENCES dbo.Users (id),
      subjectUserId nvarchar(64) NOT NULL CONSTRAINT FK_AccountNotices_subject REFERENCES dbo.Users (id),
      eventAt datetime2(3) NOT NULL,
      createdAt datetime2(3) NOT NULL,
      enqueuedAt datetime2(3) NULL
    )`);
  await tx.execute(
    'CREATE UNIQUE INDEX UX_AccountNotices_kind_subject_eventAt ON dbo.AccountNotices (kind, subjectUserId, eventAt)',
  );
  await tx.execute('CREATE INDEX IX_AccountNotices_enqueuedAt_createdAt ON dbo.AccountNotices (enqueuedAt, createdAt)');
  await tx.execute(`
    CREATE TABLE dbo.AccountNoticeDeliveries (
      noticeId nvarchar(64) NOT NULL CONSTRAINT FK_AccountNoticeDeliveries_notice REFERENCES dbo.AccountNotices (id),
      channel nvarchar(8) NOT NULL CONSTRAINT CK_AccountNoticeDeliveries_channel CHECK (channel IN (N'push', N'email')),
      result nvarchar(32) NOT NULL CONSTRAINT CK_AccountNoticeDeliveries_result
        CHECK (result IN (N'pending', N'success', N'accepted', N'provider_error', N'hard_bounce', N'stale_token', N'failed')),
      attempts int NOT NULL CONSTRAINT CK_AccountNoticeDeliveries_attempts CHECK (attempts >= 1),
      providerCode nvarchar(64) NULL,
      providerMessageId nvarchar(128) NULL,
      claimedUntil datetime2(3) NULL,
      createdAt datetime2(3) NOT NULL,
      updatedAt datetime2(3) NOT NULL,
      CONSTRAINT PK_AccountNoticeDeliveries PRIMARY KEY (noticeId, channel)
    )`);
  await tx.execute(`
    CREATE INDEX IX_AuditLog_subjectUserId_occurredAt_id ON dbo.AuditLog (subjectUserId, occurredAt DESC, id DESC)
    INCLUDE (eventType, outcome, reason, targetId) WITH (ONLINE = ON)`);
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP INDEX IX_AuditLog_subjectUserId_occurredAt_id ON dbo.AuditLog');
  await tx.execute('DROP TABLE dbo.AccountNoticeDeliveries');
  await tx.execute('DROP TABLE dbo.AccountNotices');
}
