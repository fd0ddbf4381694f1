import type { SqlExecutor } from '../../database';

/**
 * The development outbox: where deliveries go when no provider is configured outside production,
 * so a developer can watch a fan-out happen. It holds the recipient's address or push token and
 * the text, which is why only non-production environments ever write it (the provider factory
 * refuses the outbox in production): on SQL Server the table exists for schema parity and stays
 * empty in production. Clustered on time so inserts append. Rows are disposable.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE dbo.NotificationOutbox (
      id nvarchar(64) NOT NULL CONSTRAINT PK_NotificationOutbox PRIMARY KEY NONCLUSTERED,
      channel nvarchar(16) NOT NULL CONSTRAINT CK_NotificationOutbox_channel CHECK (channel IN (N'push', N'sms', N'email')),
      announcementId nvarchar(64) NULL,
      recipient nvarchar(320) NOT NULL,
      title nvarchar(1000) NULL,
      messageText nvarchar(max) NOT NULL,
      createdAt datetime2(3) NOT NULL
    )`);
  await tx.execute('CREATE CLUSTERED INDEX IX_NotificationOutbox_createdAt ON dbo.NotificationOutbox (createdAt)');
  await tx.execute(
    'CREATE INDEX IX_NotificationOutbox_announcementId ON dbo.NotificationOutbox (announcementId, channel)',
  );
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE dbo.NotificationOutbox');
}
