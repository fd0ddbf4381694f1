import type { SqlExecutor } from '../../database';

/**
 * `PushTickets` clustered by (`sentAt`, `ticketId`) instead of the random `ticketId` alone (see the
 * SQLite migration): a fan-out's tickets are appended rather than split across pages, and the receipt
 * check finds the oldest first and deletes each by the same key; the `sentAt` index is its prefix now.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE dbo.PushTickets DROP CONSTRAINT PK_PushTickets');
  await tx.execute('DROP INDEX IX_PushTickets_sentAt ON dbo.PushTickets');
  await tx.execute('ALTER TABLE dbo.PushTickets ADD CONSTRAINT PK_PushTickets PRIMARY KEY CLUSTERED (sentAt, ticketId)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE dbo.PushTickets DROP CONSTRAINT PK_PushTickets');
  // One row per ticket id again: the first sent of any that repeat it.
  await tx.execute(`
    WITH repeated AS (SELECT ROW_NUMBER() OVER (PARTITION BY ticketId ORDER BY sentAt) AS copy FROM dbo.PushTickets)
    DELETE FROM repeated WHERE copy > 1`);
  await tx.execute('ALTER TABLE dbo.PushTickets ADD CONSTRAINT PK_PushTickets PRIMARY KEY CLUSTERED (ticketId)');
  await tx.execute('CREATE INDEX IX_PushTickets_sentAt ON dbo.PushTickets (sentAt)');
}
