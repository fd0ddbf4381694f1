import type { SqlExecutor } from '../../database';

/**
 * The audit log (contract section 7). Append-only is enforced here, by the database: triggers
 * refuse every UPDATE and DELETE, whatever code or tool sends them. Timestamps are ISO 8601 UTC
 * text, which sorts in time order. No `down`: a rollback must never drop the audit trail.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE AuditLog (
      id TEXT NOT NULL PRIMARY KEY,
      occurredAt TEXT NOT NULL,
      eventType TEXT NOT NULL,
      actorUserId TEXT NULL,
      subjectUserId TEXT NULL,
      targetType TEXT NULL,
      targetId TEXT NULL,
      outcome TEXT NOT NULL CHECK (outcome IN ('success', 'failure')),
      reason TEXT NULL,
      traceId TEXT NULL,
      details TEXT NULL CHECK (details IS NULL OR json_valid(details))
    ) STRICT`);
  await tx.execute('CREATE INDEX IX_AuditLog_occurredAt ON AuditLog (occurredAt)');
  await tx.execute('CREATE INDEX IX_AuditLog_eventType_occurredAt ON AuditLog (eventType, occurredAt)');
  await tx.execute('CREATE INDEX IX_AuditLog_subjectUserId_occurredAt ON AuditLog (subjectUserId, occurredAt)');
  await tx.execute(`
    CREATE TRIGGER AuditLog_RefuseUpdate BEFORE UPDATE ON AuditLog
    BEGIN
      SELECT RAISE(ABORT, 'AuditLog is append-only');
    END`);
  await tx.execute(`
    CREATE TRIGGER AuditLog_RefuseDelete BEFORE DELETE ON AuditLog
    BEGIN
      SELECT RAISE(ABORT, 'AuditLog is append-only');
    END`);
}
