import type { SqlExecutor } from '../../database';

/**
 * The recovery timer looks every minute for `pending` ledger rows whose lease ran out
 * without a release: a filtered index keeps that a seek over the few rows in flight, never a scan
 * of every delivery ever made.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute("CREATE INDEX IX_NotificationDeliveries_pending_claimedUntil ON NotificationDeliveries (claimedUntil) WHERE result = 'pending'");
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP INDEX IX_NotificationDeliveries_pending_claimedUntil');
}
