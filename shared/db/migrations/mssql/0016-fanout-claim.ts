import type { SqlExecutor } from '../../database';

/**
 * Who is enqueueing a published announcement's fan-out (see the SQLite migration). Null: nobody
 * is enqueueing it now.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE dbo.Announcements ADD fanoutClaimedAt datetime2(3) NULL');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE dbo.Announcements DROP COLUMN fanoutClaimedAt');
}
