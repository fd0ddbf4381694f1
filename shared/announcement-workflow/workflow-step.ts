import type { AuditDetails, AuditEventType } from '../audit/audit-event';
import { writeAudit } from '../audit/write-audit';
import type { SqlExecutor } from '../db/database';
import { errorFields } from '../logging/logger';
import type { User } from '../users/user';
import type { Announcement, AnnouncementStatus } from '../announcements/announcement';
import type { AnnouncementDeps } from './announcement-deps';
import { measureQueueDepth, reportQueueDepth } from './queue-depth';

/**
 * What every workflow step records (contract section 9): an audit row in the step's transaction,
 * then, once committed, an info line and the `approval.queue_depth` event and gauge. The actor's
 * `userId` is on the line from the request's log context.
 */

export interface WorkflowStep {
  auditEvent: AuditEventType;
  logMessage: string;
  actor: User;
  announcement: Pick<Announcement, 'id' | 'authorId'>;
  status: AnnouncementStatus;
  /** Extra audit facts: counts and labels only, never the announcement's text or a rejection reason. */
  details?: AuditDetails;
}

/** Writes the step's audit row through `tx`, the transaction that makes the change. */
export async function auditStep(tx: SqlExecutor, step: WorkflowStep, deps: AnnouncementDeps): Promise<void> {
  await writeAudit(
    tx,
    {
      eventType: step.auditEvent,
      outcome: 'success',
      actorUserId: step.actor.id,
      subjectUserId: step.announcement.authorId,
      targetType: 'announcement',
      targetId: step.announcement.id,
      details: { announcementId: step.announcement.id, role: step.actor.role, status: step.status, ...step.details },
    },
    deps,
  );
}

/**
 * After the step committed: the info line, then the queue depth as it now is. A failure to
 * measure the depth is a warn line, not a failed request: the step itself is done.
 */
export async function announceStep(step: WorkflowStep, deps: AnnouncementDeps): Promise<void> {
  deps.logger.info({ announcementId: step.announcement.id, role: step.actor.role, status: step.status }, step.logMessage);
  try {
    reportQueueDepth(await measureQueueDepth(await deps.database.get(), deps.clock.now()), deps.telemetry);
  } catch (error) {
    deps.logger.warn({ announcementId: step.announcement.id, ...errorFields(error) }, 'approval queue depth not reported');
  }
}
