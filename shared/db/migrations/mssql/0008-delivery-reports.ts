import type { SqlExecutor } from '../../database';

/**
 * What the providers report after a send, as in `../sqlite/0008-delivery-reports.ts`:
 * the ledger's `accepted`, `delivered` and `failed` results with the indexes the reports and the
 * settle timer read; SmsOptOuts keeps the last STOP and the last START of a number; ProviderEvents
 * holds the ids of events already applied. Provider ids compare exactly (binary collation), like
 * every identifier here.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE dbo.NotificationDeliveries DROP CONSTRAINT CK_NotificationDeliveries_result');
  await tx.execute(`
    ALTER TABLE dbo.NotificationDeliveries ADD CONSTRAINT CK_NotificationDeliveries_result
      CHECK (result IN (N'pending', N'accepted', N'success', N'delivered', N'failed', N'provider_error', N'hard_bounce', N'stale_token', N'opted_out', N'budget_exceeded'))`);
  await tx.execute('ALTER TABLE dbo.NotificationDeliveries ALTER COLUMN providerMessageId nvarchar(128) COLLATE Latin1_General_100_BIN2 NULL');
  await tx.execute(
    'CREATE INDEX IX_NotificationDeliveries_channel_providerMessageId ON dbo.NotificationDeliveries (channel, providerMessageId)',
  );
  // Filtered: only rows waiting for their report are in it, so finishing other rows never touches it.
  await tx.execute(
    "CREATE INDEX IX_NotificationDeliveries_accepted_updatedAt ON dbo.NotificationDeliveries (channel, updatedAt) WHERE result = N'accepted'",
  );
  await tx.execute('ALTER TABLE dbo.SmsOptOuts ALTER COLUMN optedOutAt datetime2(3) NULL');
  await tx.execute('ALTER TABLE dbo.SmsOptOuts ADD optedInAt datetime2(3) NULL');
  await tx.execute(`
    CREATE TABLE dbo.ProviderEvents (
      eventId nvarchar(128) COLLATE Latin1_General_100_BIN2 NOT NULL CONSTRAINT PK_ProviderEvents PRIMARY KEY,
      eventType nvarchar(128) NOT NULL,
      receivedAt datetime2(3) NOT NULL
    )`);
  await tx.execute('CREATE INDEX IX_ProviderEvents_receivedAt ON dbo.ProviderEvents (receivedAt)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE dbo.ProviderEvents');
  await tx.execute('DELETE FROM dbo.SmsOptOuts WHERE optedOutAt IS NULL OR (optedInAt IS NOT NULL AND optedInAt >= optedOutAt)');
  await tx.execute('ALTER TABLE dbo.SmsOptOuts DROP COLUMN optedInAt');
  await tx.execute('ALTER TABLE dbo.SmsOptOuts ALTER COLUMN optedOutAt datetime2(3) NOT NULL');
  await tx.execute('DROP INDEX IX_NotificationDeliveries_accepted_updatedAt ON dbo.NotificationDeliveries');
  await tx.execute('DROP INDEX IX_NotificationDeliveries_channel_providerMessageId ON dbo.NotificationDeliveries');
  await tx.execute('ALTER TABLE dbo.NotificationDeliveries ALTER COLUMN providerMessageId nvarchar(128) COLLATE DATABASE_DEFAULT NULL');
  await tx.execute("UPDATE dbo.NotificationDeliveries SET result = N'success' WHERE result IN (N'accepted', N'delivered')");
  await tx.execute("UPDATE dbo.NotificationDeliveries SET result = N'provider_error' WHERE result = N'failed'");
  await tx.execute('ALTER TABLE dbo.NotificationDeliveries DROP CONSTRAINT CK_NotificationDeliveries_result');
  await tx.execute(`
    ALTER TABLE dbo.NotificationDeliveries ADD CONSTRAINT CK_NotificationDeliveries_result
      CHECK (result IN (N'pending', N'success', N'provider_error', N'hard_bounce', N'stale_token', N'opted_out', N'budget_exceeded'))`);
}
