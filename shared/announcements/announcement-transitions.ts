import type { AuditEventType } from '../audit/audit-event';
import type { AnnouncementStatus } from './announcement';

/**
 * The workflow's transition table (contract section 9). Anything not in it is refused with 409
 * `invalid_transition`; who may take a step is checked before the table is consulted.
 */

export const WORKFLOW_ACTIONS = ['submit', 'approve', 'reject', 'publish'] as const;
export type WorkflowAction = (typeof WORKFLOW_ACTIONS)[number];

/** `author`: only the announcement's own author (who must still hold a writing role); `admin`: any administrator. */
export type ActorRule = 'author' | 'admin';

export interface TransitionRule {
  from: readonly AnnouncementStatus[];
  to: AnnouncementStatus;
  actor: ActorRule;
  auditEvent: AuditEventType;
  /** The message of the info line that records the step. */
  logMessage: string;
}

export const TRANSITIONS: Readonly<Record<WorkflowAction, TransitionRule>> = {
  submit: {
    from: ['draft', 'rejected'],
    to: 'queued',
    actor: 'author',
    auditEvent: 'announcement_submitted',
    logMessage: 'announcement submitted',
  },
  approve: { from: ['queued'], to: 'approved', actor: 'admin', auditEvent: 'announcement_approved', logMessage: 'announcement approved' },
  reject: { from: ['queued'], to: 'rejected', actor: 'admin', auditEvent: 'announcement_rejected', logMessage: 'announcement rejected' },
  publish: {
    from: ['approved'],
    to: 'published',
    actor: 'admin',
    auditEvent: 'announcement_published',
    logMessage: 'announcement published',
  },
};

/** Statuses in which its author may still edit an announcement (PATCH); editing keeps the status. */
export const EDITABLE_STATUSES: readonly AnnouncementStatus[] = ['draft', 'rejected'];

/**
 * The status `action` leads to from `from`.
 * @returns undefined when the table has no such step.
 */
export function nextStatus(action: WorkflowAction, from: AnnouncementStatus): AnnouncementStatus | undefined {
  const rule = TRANSITIONS[action];
  return rule.from.includes(from) ? rule.to : undefined;
}

/** True when its author may edit an announcement in status `status`. */
export function isEditable(status: AnnouncementStatus): boolean {
  return EDITABLE_STATUSES.includes(status);
}
