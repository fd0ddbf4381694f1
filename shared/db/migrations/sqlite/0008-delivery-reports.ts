import type { SqlExecutor } from '../../database';

/**
 * What the providers report after a send:
 * - NotificationDeliveries gains `accepted` (handed to the provider, its delivery report still to
 *   come) and the reported end states `delivered` and `failed`. SQLite cannot change a CHECK
 *   constraint in place, so the table is rebuilt. Two indexes serve the reports: an e-mail report
 *   names only its operation id (`providerMessageId`), and the settle timer reads old `accepted` rows
 *   (a partial index of those rows alone).
 * - SmsOptOuts keeps both the last STOP and the last START of a number, so reports that arrive out
 *   of order still leave the later keyword in force: a START row may exist without a STOP.
 * - ProviderEvents: the ids of provider events already applied, so a redelivered event changes
 *   nothing twice.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await rebuildDeliveries(tx, RESULTS_WITH_REPORTS);
  await tx.execute('CREATE INDEX IX_NotificationDeliveries_channel_providerMessageId ON NotificationDeliveries (channel, providerMessageId)');
  // Partial: only rows waiting for their report are in it, so finishing other rows never touches it.
  await tx.execute("CREATE INDEX IX_NotificationDeliveries_accepted_updatedAt ON NotificationDeliveries (channel, updatedAt) WHERE result = 'accepted'");

  await tx.execute(`
    CREATE TABLE SmsOptOuts_new (
      phone TEXT NOT NULL PRIMARY KEY,
      optedOutAt TEXT NULL,
      optedInAt TEXT NULL
    ) STRICT`);
  await tx.execute('INSERT INTO SmsOptOuts_new (phone, optedOutAt, optedInAt) SELECT phone, optedOutAt, NULL FROM SmsOptOuts');
  await tx.execute('DROP TABLE SmsOptOuts');
  await tx.execute('ALTER TABLE SmsOptOuts_new RENAME TO SmsOptOuts');

  await tx.execute(`
    CREATE TABLE ProviderEvents (
      eventId TEXT NOT NULL PRIMARY KEY,
      eventType TEXT NOT NULL,
      receivedAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute('CREATE INDEX IX_ProviderEvents_receivedAt ON ProviderEvents (receivedAt)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE ProviderEvents');
  await tx.execute("DELETE FROM SmsOptOuts WHERE optedOutAt IS NULL OR (optedInAt IS NOT NULL AND optedInAt >= optedOutAt)");
  await tx.execute(`
    CREATE TABLE SmsOptOuts_old (
      phone TEXT NOT NULL PRIMARY KEY,
      optedOutAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute('INSERT INTO SmsOptOuts_old (phone, optedOutAt) SELECT phone, optedOutAt FROM SmsOptOuts');
  await tx.execute('DROP TABLE SmsOptOuts');
  await tx.execute('ALTER TABLE SmsOptOuts_old RENAME TO SmsOptOuts');
  await tx.execute("UPDATE NotificationDeliveries SET result = 'success' WHERE result IN ('accepted', 'delivered')");
  await tx.execute("UPDATE NotificationDeliveries SET result = 'provider_error' WHERE result = 'failed'");
  await rebuildDeliveries(tx, RESULTS_BEFORE);
}

const RESULTS_BEFORE = ['pending', 'success', 'provider_error', 'hard_bounce', 'stale_token', 'opted_out', 'budget_exceeded'];
const RESULTS_WITH_REPORTS = ['pending', 'accepted', 'success', 'delivered', 'failed', ...RESULTS_BEFORE.slice(2)];

/** Recreates the ledger with `results` in its CHECK constraint, keeping its rows and its first index. */
async function rebuildDeliveries(tx: SqlExecutor, results: readonly string[]): Promise<void> {
  await tx.execute(`
    CREATE TABLE NotificationDeliveries_rebuilt (
      announcementId TEXT NOT NULL REFERENCES Announcements (id),
      userId TEXT NOT NULL REFERENCES Users (id),
      channel TEXT NOT NULL CHECK (channel IN ('push', 'sms', 'email')),
      result TEXT NOT NULL CHECK (result IN (${results.map((result) => `'${result}'`).join(', ')})),
      attempts INTEGER NOT NULL CHECK (attempts >= 1),
      providerCode TEXT NULL,
      providerMessageId TEXT NULL,
      claimedUntil TEXT NULL,
      createdAt TEXT NOT NULL,
      updatedAt TEXT NOT NULL,
      PRIMARY KEY (announcementId, userId, channel)
    ) STRICT`);
  await tx.execute('INSERT INTO NotificationDeliveries_rebuilt SELECT * FROM NotificationDeliveries');
  await tx.execute('DROP TABLE NotificationDeliveries');
  await tx.execute('ALTER TABLE NotificationDeliveries_rebuilt RENAME TO NotificationDeliveries');
  await tx.execute('CREATE INDEX IX_NotificationDeliveries_announcementId_result ON NotificationDeliveries (announcementId, result)');
}
