import type { SqlExecutor } from '../db/database';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { currentLogContext } from '../logging/log-context';
import type { Clock } from '../ports/clock';
import type { Random } from '../ports/random';
import { toAuditRowValues } from './audit-entry';
import type { AuditEntry } from './audit-event';

export interface AuditWriterDeps {
  clock: Clock;
  random: Random;
}

const INSERT_AUDIT_ROW = `
  INSERT INTO AuditLog (id, occurredAt, eventType, actorUserId, subjectUserId, targetType, targetId, outcome, reason, traceId, details)
  VALUES (@id, @occurredAt, @eventType, @actorUserId, @subjectUserId, @targetType, @targetId, @outcome, @reason, @traceId, @details)`;

/**
 * Appends one audit row. Pass the `tx` of the transaction that makes the change being recorded,
 * so the change and its audit row are committed (or rolled back) together; pass the database
 * itself only for events that change nothing else (a failed sign-in).
 * Throws `InvalidAuditEntryError` for an entry that must not be written (see `toAuditRowValues`), and
 * `DependencyUnavailableError('database')` when the row cannot be stored (the caller's transaction then rolls back).
 * @param executor a transaction's `tx`, or the database.
 * @param entry what happened; `traceId` defaults to the running request chain's.
 * @param deps the clock stamps `occurredAt`, the random source makes the row id.
 * @returns the new row's id and timestamp.
 */
export async function writeAudit(
  executor: SqlExecutor,
  entry: AuditEntry,
  deps: AuditWriterDeps,
): Promise<{ id: string; occurredAt: string }> {
  const values = toAuditRowValues({ ...entry, traceId: entry.traceId ?? currentLogContext().traceId });
  const id = deps.random.uuid();
  const occurredAt = deps.clock.now().toISOString();
  try {
    await executor.execute(INSERT_AUDIT_ROW, { id, occurredAt, ...values });
  } catch (error) {
    // An audit row that cannot be stored makes the whole change fail as "service unavailable"
    // (503): the request was fine, and nothing happens without its audit record.
    throw error instanceof DependencyUnavailableError ? error : new DependencyUnavailableError('database', { cause: error });
  }
  return { id, occurredAt };
}
