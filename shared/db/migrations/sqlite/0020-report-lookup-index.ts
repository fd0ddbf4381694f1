import type { SqlExecutor } from '../../database';

/**
 * The index a delivery report finds its row by (`channel`, `providerMessageId`) leaves push rows
 * out: push has no delivery reports (its receipts are read through `PushTickets`), and Expo's
 * ticket ids are random, so each push answer wrote one index entry per recipient on a page of its
 * own, the largest share of a push fan-out's ledger writes beside the rows themselves. Partial, so
 * the look-up names `channel <> 'push'` for the planner to use it.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP INDEX IX_NotificationDeliveries_channel_providerMessageId');
  await tx.execute(
    "CREATE INDEX IX_NotificationDeliveries_channel_providerMessageId ON NotificationDeliveries (channel, providerMessageId) WHERE channel <> 'push'",
  );
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP INDEX IX_NotificationDeliveries_channel_providerMessageId');
  await tx.execute('CREATE INDEX IX_NotificationDeliveries_channel_providerMessageId ON NotificationDeliveries (channel, providerMessageId)');
}
