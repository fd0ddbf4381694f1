import type { SqlExecutor } from '../../database';

/**
 * The account notices' ledger (`AccountNoticeDeliveries`) gets the columns the delivery engine's
 * statements read on every ledger (`shared/notifications/ledger/leased-rows.ts`), so a notice is
 * claimed, sent and written by the same statements as an announcement's deliveries:
 * - `userId`: the recipient (the engine's claims and results name a row by subject, user and
 *   channel), filled for existing rows from their notice's `recipientUserId`;
 * - `firstSentAt`: when the row's e-mail was first handed to the provider, sent on every resend as
 *   ACS's `Repeatability-First-Sent` (as `NotificationDeliveries` has since 0014). Null: never sent.
 * SQLite adds no NOT NULL column with a reference in place: the table is rebuilt (nothing references
 * it), its rows kept; the primary key stays notice × channel (a notice has one recipient).
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE AccountNoticeDeliveries_rebuilt (
      noticeId TEXT NOT NULL REFERENCES AccountNotices (id),
      userId TEXT NOT NULL REFERENCES Users (id),
      channel TEXT NOT NULL CHECK (channel IN ('push', 'email')),
      result TEXT NOT NULL CHECK (result IN ('pending', 'success', 'accepted', 'provider_error', 'hard_bounce', 'stale_token', 'failed')),
      attempts INTEGER NOT NULL CHECK (attempts >= 1),
      providerCode TEXT NULL,
      providerMessageId TEXT NULL,
      claimedUntil TEXT NULL,
      firstSentAt TEXT NULL,
      createdAt TEXT NOT NULL,
      updatedAt TEXT NOT NULL,
      PRIMARY KEY (noticeId, channel)
    ) STRICT`);
  await tx.execute(`
    INSERT INTO AccountNoticeDeliveries_rebuilt
      (noticeId, userId, channel, result, attempts, providerCode, providerMessageId, claimedUntil, firstSentAt, createdAt, updatedAt)
    SELECT d.noticeId, n.recipientUserId, d.channel, d.result, d.attempts, d.providerCode, d.providerMessageId, d.claimedUntil, NULL, d.createdAt, d.updatedAt
    FROM AccountNoticeDeliveries d INNER JOIN AccountNotices n ON n.id = d.noticeId`);
  await tx.execute('DROP TABLE AccountNoticeDeliveries');
  await tx.execute('ALTER TABLE AccountNoticeDeliveries_rebuilt RENAME TO AccountNoticeDeliveries');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE AccountNoticeDeliveries_rebuilt (
      noticeId TEXT NOT NULL REFERENCES AccountNotices (id),
      channel TEXT NOT NULL CHECK (channel IN ('push', 'email')),
      result TEXT NOT NULL CHECK (result IN ('pending', 'success', 'accepted', 'provider_error', 'hard_bounce', 'stale_token', 'failed')),
      attempts INTEGER NOT NULL CHECK (attempts >= 1),
      providerCode TEXT NULL,
      providerMessageId TEXT NULL,
      claimedUntil TEXT NULL,
      createdAt TEXT NOT NULL,
      updatedAt TEXT NOT NULL,
      PRIMARY KEY (noticeId, channel)
    ) STRICT`);
  await tx.execute(`
    INSERT INTO AccountNoticeDeliveries_rebuilt (noticeId, channel, result, attempts, providerCode, providerMessageId, claimedUntil, createdAt, updatedAt)
    SELECT noticeId, channel, result, attempts, providerCode, providerMessageId, claimedUntil, createdAt, updatedAt FROM AccountNoticeDeliveries`);
  await tx.execute('DROP TABLE AccountNoticeDeliveries');
  await tx.execute('ALTER TABLE AccountNoticeDeliveries_rebuilt RENAME TO AccountNoticeDeliveries');
}
