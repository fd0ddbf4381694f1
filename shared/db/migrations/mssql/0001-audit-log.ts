import type { SqlExecutor } from '../../database';

/**
 * The audit log (contract section 7). Append-only is enforced here, by the database: an INSTEAD OF
 * trigger refuses every UPDATE and DELETE. (TRUNCATE and DROP bypass triggers; the app's database
 * user must not hold ALTER on the table, which is the deployment's part.) The clustered index is
 * on `occurredAt`, so inserts append at the end instead of landing at random UUID positions.
 * No `down`: a rollback must never drop the audit trail.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE dbo.AuditLog (
      id nvarchar(64) NOT NULL CONSTRAINT PK_AuditLog PRIMARY KEY NONCLUSTERED,
      occurredAt datetime2(3) NOT NULL,
      eventType nvarchar(64) NOT NULL,
      actorUserId nvarchar(64) NULL,
      subjectUserId nvarchar(64) NULL,
      targetType nvarchar(64) NULL,
      targetId nvarchar(128) NULL,
      outcome nvarchar(16) NOT NULL CONSTRAINT CK_AuditLog_outcome CHECK (outcome IN (N'success', N'failure')),
      reason nvarchar(64) NULL,
      traceId nvarchar(64) NULL,
      details nvarchar(max) NULL CONSTRAINT CK_AuditLog_details CHECK (details IS NULL OR ISJSON(details) = 1)
    )`);
  await tx.execute('CREATE CLUSTERED INDEX IX_AuditLog_occurredAt ON dbo.AuditLog (occurredAt)');
  await tx.execute('CREATE INDEX IX_AuditLog_eventType_occurredAt ON dbo.AuditLog (eventType, occurredAt)');
  await tx.execute('CREATE INDEX IX_AuditLog_subjectUserId_occurredAt ON dbo.AuditLog (subjectUserId, occurredAt)');
  await tx.execute(`
    CREATE TRIGGER dbo.AuditLog_RefuseChange ON dbo.AuditLog INSTEAD OF UPDATE, DELETE
    AS
    BEGIN
      SET NOCOUNT ON;
      THROW 51000, 'AuditLog is append-only', 1;
    END`);
}
