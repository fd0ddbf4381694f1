import type { Database } from '../db/database';
import { limitClause } from '../db/dialect';
import type { AuditDetails, AuditEvent, AuditEventType } from './audit-event';

/** Reads the audit log: tests now, the admin views later. Writing goes through `writeAudit` only. */

export interface AuditEventFilter {
  eventType?: AuditEventType;
  subjectUserId?: string;
  /** 1 to 500. */
  limit: number;
}

export const MAX_AUDIT_PAGE = 500;

interface AuditRow {
  id: string;
  occurredAt: string;
  eventType: AuditEvent['eventType'];
  outcome: AuditEvent['outcome'];
  actorUserId: string | null;
  subjectUserId: string | null;
  targetType: string | null;
  targetId: string | null;
  reason: AuditEvent['reason'];
  traceId: string | null;
  details: string | null;
}

/**
 * The newest audit events first (ties broken by id), optionally of one type or about one user.
 * @param db the database (its dialect picks the paging clause).
 */
export async function listAuditEvents(db: Pick<Database, 'dialect' | 'query'>, filter: AuditEventFilter): Promise<AuditEvent[]> {
  if (!Number.isInteger(filter.limit) || filter.limit < 1 || filter.limit > MAX_AUDIT_PAGE) {
    throw new RangeError(`limit must be a whole number from 1 to ${MAX_AUDIT_PAGE}`);
  }
  const conditions: string[] = [];
  const params: Record<string, string | number> = { limit: filter.limit };
  if (filter.eventType !== undefined) {
    conditions.push('eventType = @eventType');
    params.eventType = filter.eventType;
  }
  if (filter.subjectUserId !== undefined) {
    conditions.push('subjectUserId = @subjectUserId');
    params.subjectUserId = filter.subjectUserId;
  }
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  const rows = await db.query<AuditRow>(
    `SELECT id, occurredAt, eventType, outcome, actorUserId, subjectUserId, targetType, targetId, reason, traceId, details
     FROM AuditLog ${where}
     ORDER BY occurredAt DESC, id DESC
     ${limitClause(db.dialect, '@limit')}`,
    params,
  );
  return rows.map((row) => ({ ...row, details: row.details === null ? null : (JSON.parse(row.details) as AuditDetails) }));
}
