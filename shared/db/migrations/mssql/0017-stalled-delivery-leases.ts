import type { SqlExecutor } from '../../database';

/** The recovery timer's look-up of expired ledger leases (see the SQLite migration): a filtered index. */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(
    "CREATE INDEX IX_NotificationDeliveries_pending_claimedUntil ON dbo.NotificationDeliveries (claimedUntil) INCLUDE (updatedAt) WHERE result = N'pending'",
  );
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP INDEX IX_NotificationDeliveries_pending_claimedUntil ON dbo.NotificationDeliveries');
}
