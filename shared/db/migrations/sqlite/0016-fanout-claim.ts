import type { SqlExecutor } from '../../database';

/**
 * Who is enqueueing a published announcement's fan-out: set, by a compare-and-set, by
 * the publish step that commits and by a publish retried after a failed enqueue; cleared when an
 * enqueue fails. Concurrent publishes of one announcement so make one fan-out message, not one
 * each. Null: nobody is enqueueing it now.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE Announcements ADD COLUMN fanoutClaimedAt TEXT NULL');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE Announcements DROP COLUMN fanoutClaimedAt');
}
