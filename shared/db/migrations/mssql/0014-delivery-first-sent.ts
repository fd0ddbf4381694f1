import type { SqlExecutor } from '../../database';

/**
 * When a ledger row's SMS or e-mail was first handed to the provider, sent on every resend as
 * ACS's `Repeatability-First-Sent` (see the SQLite migration). Null: never sent.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE dbo.NotificationDeliveries ADD firstSentAt datetime2(3) NULL');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE dbo.NotificationDeliveries DROP COLUMN firstSentAt');
}
