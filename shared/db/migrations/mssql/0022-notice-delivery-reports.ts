import type { SqlExecutor } from '../../database';

/**
 * Account notices' e-mails are settled as announcements' are (see the SQLite migration): the
 * notices' ledger takes `delivered`, its provider ids compare exactly (binary collation, as
 * `NotificationDeliveries`' since 0008: the report's look-up is by the id), and two filtered
 * indexes serve the report's look-up by (`channel`, `providerMessageId`) without push rows and the
 * settle timer's old `accepted` rows. The ledger holds a few rows per locked child account.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await replaceResultCheck(tx, [...RESULTS_BEFORE, 'delivered']);
  await tx.execute('ALTER TABLE dbo.AccountNoticeDeliveries ALTER COLUMN providerMessageId nvarchar(128) COLLATE Latin1_General_100_BIN2 NULL');
  await tx.execute(
    "CREATE INDEX IX_AccountNoticeDeliveries_channel_providerMessageId ON dbo.AccountNoticeDeliveries (channel, providerMessageId) WHERE channel <> N'push'",
  );
  await tx.execute(
    "CREATE INDEX IX_AccountNoticeDeliveries_accepted_updatedAt ON dbo.AccountNoticeDeliveries (channel, updatedAt) WHERE result = N'accepted'",
  );
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP INDEX IX_AccountNoticeDeliveries_accepted_updatedAt ON dbo.AccountNoticeDeliveries');
  await tx.execute('DROP INDEX IX_AccountNoticeDeliveries_channel_providerMessageId ON dbo.AccountNoticeDeliveries');
  await tx.execute('ALTER TABLE dbo.AccountNoticeDeliveries ALTER COLUMN providerMessageId nvarchar(128) COLLATE DATABASE_DEFAULT NULL');
  // Sent: the nearest result there was.
  await tx.execute("UPDATE dbo.AccountNoticeDeliveries SET result = N'success' WHERE result = N'delivered'");
  await replaceResultCheck(tx, RESULTS_BEFORE);
}

const RESULTS_BEFORE = ['pending', 'success', 'accepted', 'provider_error', 'hard_bounce', 'stale_token', 'failed'];

/** Replaces the table's CHECK constraint on `result` by one allowing `results`. */
async function replaceResultCheck(tx: SqlExecutor, results: readonly string[]): Promise<void> {
  await tx.execute('ALTER TABLE dbo.AccountNoticeDeliveries DROP CONSTRAINT CK_AccountNoticeDeliveries_result');
  await tx.execute(`
    ALTER TABLE dbo.AccountNoticeDeliveries ADD CONSTRAINT CK_AccountNoticeDeliveries_result
      CHECK (result IN (${results.map((result) => `N'${result}'`).join(', ')}))`);
}
