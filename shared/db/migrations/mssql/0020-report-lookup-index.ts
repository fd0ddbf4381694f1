import type { SqlExecutor } from '../../database';

/** The report look-up index without push rows (see the SQLite migration): a filtered index. */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP INDEX IX_NotificationDeliveries_channel_providerMessageId ON dbo.NotificationDeliveries');
  await tx.execute(
    "CREATE INDEX IX_NotificationDeliveries_channel_providerMessageId ON dbo.NotificationDeliveries (channel, providerMessageId) WHERE channel <> N'push'",
  );
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP INDEX IX_NotificationDeliveries_channel_providerMessageId ON dbo.NotificationDeliveries');
  await tx.execute(
    'CREATE INDEX IX_NotificationDeliveries_channel_providerMessageId ON dbo.NotificationDeliveries (channel, providerMessageId)',
  );
}
