import type { SqlExecutor } from '../../database';

/**
 * Erasure, as in `../sqlite/0015-account-erasure.ts`: Users gains the tombstone status `erased`
 * (an erased adult keeps no issuer or subject), ReservedUsernames keeps an erased child's username
 * taken (by its HMAC) until `releasedAt`, and the audit rows get an index by actor for the export.
 * SQL Server changes the checks in place. The index is built online, as 0013's is: the audit table
 * is the largest there is and every sign-in writes to it (Azure SQL; other editions than
 * Developer and Enterprise refuse `ONLINE`, see docs/database.md).
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE dbo.Users DROP CONSTRAINT CK_Users_status');
  await tx.execute(
    "ALTER TABLE dbo.Users ADD CONSTRAINT CK_Users_status CHECK (status IN (N'active', N'pending_approval', N'disabled', N'erased'))",
  );
  await tx.execute('ALTER TABLE dbo.Users DROP CONSTRAINT CK_Users_kind');
  await tx.execute(`
    ALTER TABLE dbo.Users ADD CONSTRAINT CK_Users_kind CHECK (
      (accountType = N'adult' AND ((issuer IS NOT NULL AND subject IS NOT NULL) OR (status = N'erased' AND issuer IS NULL AND subject IS NULL))
        AND parentId IS NULL AND role <> N'child')
      OR (accountType = N'child' AND issuer IS NULL AND subject IS NULL AND parentId IS NOT NULL AND role = N'child'))`);
  await tx.execute(`
    CREATE TABLE dbo.ReservedUsernames (
      usernameKey nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL CONSTRAINT PK_ReservedUsernames PRIMARY KEY,
      reservedAt datetime2(3) NOT NULL,
      releasedAt datetime2(3) NOT NULL
    )`);
  await tx.execute('CREATE INDEX IX_AuditLog_actorUserId_occurredAt_id ON dbo.AuditLog (actorUserId, occurredAt DESC, id DESC) WITH (ONLINE = ON)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP INDEX IX_AuditLog_actorUserId_occurredAt_id ON dbo.AuditLog');
  await tx.execute('DROP TABLE dbo.ReservedUsernames');
  await tx.execute(
    "UPDATE dbo.Users SET status = N'disabled', issuer = CASE WHEN accountType = N'adult' THEN N'erased' END, subject = CASE WHEN accountType = N'adult' THEN id END WHERE status = N'erased'",
  );
  await tx.execute('ALTER TABLE dbo.Users DROP CONSTRAINT CK_Users_kind');
  await tx.execute(`
    ALTER TABLE dbo.Users ADD CONSTRAINT CK_Users_kind CHECK (
      (accountType = N'adult' AND issuer IS NOT NULL AND subject IS NOT NULL AND parentId IS NULL AND role <> N'child')
      OR (accountType = N'child' AND issuer IS NULL AND subject IS NULL AND parentId IS NOT NULL AND role = N'child'))`);
  await tx.execute('ALTER TABLE dbo.Users DROP CONSTRAINT CK_Users_status');
  await tx.execute("ALTER TABLE dbo.Users ADD CONSTRAINT CK_Users_status CHECK (status IN (N'active', N'pending_approval', N'disabled'))");
}
