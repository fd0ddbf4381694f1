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
  await rebuild(
    tx,
    `noticeId TEXT NOT NULL REFERENCES AccountNotices (id),
      userId TEXT NOT NULL REFERENCES Users (id),
      ${LEASED_COLUMNS},
      firstSentAt TEXT NULL,`,
    `INSERT INTO AccountNoticeDeliveries_rebuilt (noticeId, userId, ${COPIED}, firstSentAt)
     SELECT d.noticeId, n.recipientUserId, ${COPIED.split(', ').map((column) => `d.${column}`).join(', ')}, NULL
     FROM AccountNoticeDeliveries d INNER JOIN AccountNotices n ON n.id = d.noticeId`,
  );
}

export async function down(tx: SqlExecutor): Promise<void> {
  await rebuild(
    tx,
    `noticeId TEXT NOT NULL REFERENCES AccountNotices (id),
      ${LEASED_COLUMNS},`,
    `INSERT INTO AccountNoticeDeliveries_rebuilt (noticeId, ${COPIED}) SELECT noticeId, ${COPIED} FROM AccountNoticeDeliveries`,
  );
}

/** The columns of a notice's delivery both before and after, as 0013 made them. */
const LEASED_COLUMNS = `channel TEXT NOT NULL CHECK (channel IN ('push', 'email')),
      result TEXT NOT NULL CHECK (result IN ('pending', 'success', 'accepted', 'provider_error', 'hard_bounce', 'stale_token', 'failed')),
      attempts INTEGER NOT NULL CHECK (attempts >= 1),
      providerCode TEXT NULL,
      providerMessageId TEXT NULL,
      claimedUntil TEXT NULL`;
const COPIED = 'channel, result, attempts, providerCode, providerMessageId, claimedUntil, createdAt, updatedAt';

/** Recreates the table with `columns` (then its times and key), its rows copied by `copy`, in the migration's transaction. */
async function rebuild(tx: SqlExecutor, columns: string, copy: string): Promise<void> {
  await tx.execute(`
    CREATE TABLE AccountNoticeDeliveries_rebuilt (
      ${columns}
      createdAt TEXT NOT NULL,
      updatedAt TEXT NOT NULL,
      PRIMARY KEY (noticeId, channel)
    ) STRICT`);
  await tx.execute(copy);
  await tx.execute('DROP TABLE AccountNoticeDeliveries');
  await tx.execute('ALTER TABLE AccountNoticeDeliveries_rebuilt RENAME TO AccountNoticeDeliveries');
}
