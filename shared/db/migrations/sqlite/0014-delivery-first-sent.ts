import type { SqlExecutor } from '../../database';

/**
 * When a ledger row's SMS or e-mail was first handed to the provider: written, durably,
 * right before the first send, and sent on every resend as ACS's `Repeatability-First-Sent` with
 * the row's own request id, so a resend after a crash is one ACS recognises instead of a second
 * message. Null: never sent, so a resend is a first send.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE NotificationDeliveries ADD COLUMN firstSentAt TEXT NULL');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE NotificationDeliveries DROP COLUMN firstSentAt');
}
