import type { SqlExecutor } from '../../database';

/**
 * Account notices' e-mails are settled as announcements' are (`shared/notifications/ledger/reported-deliveries.ts`):
 * - `AccountNoticeDeliveries` takes `delivered`, what an e-mail's delivery report says. SQLite cannot
 *   change a CHECK constraint in place: the table is rebuilt as 0019 left it (nothing references it),
 *   its rows kept. Going back, a `delivered` row becomes `success` (sent; the nearest result there was).
 * - Two partial indexes, as `NotificationDeliveries` has them (0008, 0020): the report's look-up by
 *   (`channel`, `providerMessageId`) without push rows (push has no reports), and the settle timer's
 *   old `accepted` rows. Without them each report and each run read the whole table.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await rebuild(tx, [...RESULTS_BEFORE, 'delivered']);
  await tx.execute(
    "CREATE INDEX IX_AccountNoticeDeliveries_channel_providerMessageId ON AccountNoticeDeliveries (channel, providerMessageId) WHERE channel <> 'push'",
  );
  await tx.execute("CREATE INDEX IX_AccountNoticeDeliveries_accepted_updatedAt ON AccountNoticeDeliveries (channel, updatedAt) WHERE result = 'accepted'");
}

export async function down(tx: SqlExecutor): Promise<void> {
  // The rebuild drops the indexes with the old table.
  await tx.execute("UPDATE AccountNoticeDeliveries SET result = 'success' WHERE result = 'delivered'");
  await rebuild(tx, RESULTS_BEFORE);
}

const RESULTS_BEFORE = ['pending', 'success', 'accepted', 'provider_error', 'hard_bounce', 'stale_token', 'failed'];
const COLUMNS = 'noticeId, userId, channel, result, attempts, providerCode, providerMessageId, claimedUntil, firstSentAt, createdAt, updatedAt';

/** Recreates the table as 0019 made it, with `results` in its CHECK constraint, its rows kept, in the migration's transaction. */
async function rebuild(tx: SqlExecutor, results: readonly string[]): Promise<void> {
  await tx.execute(`
    CREATE TABLE AccountNoticeDeliveries_rebuilt (
      noticeId TEXT NOT NULL REFERENCES AccountNotices (id),
      userId TEXT NOT NULL REFERENCES Users (id),
      channel TEXT NOT NULL CHECK (channel IN ('push', 'email')),
      result TEXT NOT NULL CHECK (result IN (${results.map((result) => `'${result}'`).join(', ')})),
      attempts INTEGER NOT NULL CHECK (attempts >= 1),
      providerCode TEXT NULL,
      providerMessageId TEXT NULL,
      claimedUntil TEXT NULL,
      firstSentAt TEXT NULL,
      createdAt TEXT NOT NULL,
      updatedAt TEXT NOT NULL,
      PRIMARY KEY (noticeId, channel)
    ) STRICT`);
  await tx.execute(`INSERT INTO AccountNoticeDeliveries_rebuilt (${COLUMNS}) SELECT ${COLUMNS} FROM AccountNoticeDeliveries`);
  await tx.execute('DROP TABLE AccountNoticeDeliveries');
  await tx.execute('ALTER TABLE AccountNoticeDeliveries_rebuilt RENAME TO AccountNoticeDeliveries');
}
