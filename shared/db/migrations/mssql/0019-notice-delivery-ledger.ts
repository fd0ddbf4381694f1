import type { SqlExecutor } from '../../database';

/**
 * The account notices' ledger gets the columns the delivery engine's statements read on every
 * ledger (see the SQLite migration): the recipient's `userId` (filled for existing rows from their
 * notice, then made NOT NULL with its reference to Users) and `firstSentAt` (ACS's
 * `Repeatability-First-Sent` of the row's e-mail; null: never sent). The ledger holds a few rows
 * per locked child account, so the fill is one short statement.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE dbo.AccountNoticeDeliveries ADD userId nvarchar(64) NULL, firstSentAt datetime2(3) NULL');
  await tx.execute(`
    UPDATE d SET userId = n.recipientUserId
    FROM dbo.AccountNoticeDeliveries AS d INNER JOIN dbo.AccountNotices AS n ON n.id = d.noticeId`);
  await tx.execute('ALTER TABLE dbo.AccountNoticeDeliveries ALTER COLUMN userId nvarchar(64) NOT NULL');
  await tx.execute('ALTER TABLE dbo.AccountNoticeDeliveries ADD CONSTRAINT FK_AccountNoticeDeliveries_user FOREIGN KEY (userId) REFERENCES dbo.Users (id)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE dbo.AccountNoticeDeliveries DROP CONSTRAINT FK_AccountNoticeDeliveries_user');
  await tx.execute('ALTER TABLE dbo.AccountNoticeDeliveries DROP COLUMN userId, firstSentAt');
}
