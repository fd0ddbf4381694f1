import type { AuditDetails } from '../audit/audit-event';
import type { SqlExecutor } from '../db/database';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { problem, type Problem } from '../errors/problem';
import type { User } from '../users/user';
import type { Announcement } from '../announcements/announcement';
import { canRead, holdsActorRole } from '../announcements/announcement-access';
import type { AnnouncementDeps, AnnouncementResult } from './announcement-deps';
import { findAnnouncementById, markPublished, markReviewed, markSubmitted } from '../announcements/announcement-store';
import { nextStatus, TRANSITIONS, type WorkflowAction } from '../announcements/announcement-transitions';
import { claimOwedFanout, enqueueClaimedFanout } from './enqueue-fanout';
import { announceStep, auditStep } from './workflow-step';

/**
 * The workflow steps of contract section 9: submit (its author), approve, reject and publish
 * (administrators). Each checks the caller's role (403), that the caller may see the announcement
 * (404), that the caller is its author where the step needs it (403) and the transition table
 * (409 `invalid_transition`); the status change is a conditional update (compare-and-set on the
 * status, inside the step's transaction), so of concurrent steps exactly one wins, writes the one
 * audit row, and the others get 409.
 *
 * Publishing and the fan-out: the status change and its audit row commit first, then the fan-out
 * message is enqueued and `fanoutEnqueuedAt` set. When the queue cannot be reached the answer is
 * 503 `service_unavailable`; the announcement stays published with `fanoutEnqueuedAt` null, and
 * publishing it again retries the enqueue (200) instead of answering 409. Enqueueing before the
 * commit was rejected: the fan-out could read the announcement before the commit and find it
 * unpublished. When nobody publishes again, the queue-depth timer's catch-up enqueues fan-outs
 * owed for more than two minutes (enqueue-fanout.ts). Enqueueing takes a claim on the row
 * (`fanoutClaimedAt`, a compare-and-set): the publish step takes it with the status change, a retry
 * only once the enqueue before it failed and gave it back, so concurrent publishes make one
 * message, and a publish that comes while another one is enqueueing gets 409. Should a message
 * still go twice (a lease ran out), the fan-out's delivery ledger makes that harmless.
 */

const ROLE_REFUSALS: Record<WorkflowAction, string> = {
  submit: 'Only authors and administrators submit announcements.',
  approve: 'Only administrators approve announcements.',
  reject: 'Only administrators reject announcements.',
  publish: 'Only administrators publish announcements.',
};

/** Its author sends a draft or rejected announcement to the approval queue. */
export function submitAnnouncement(caller: User, id: string, deps: AnnouncementDeps): Promise<AnnouncementResult> {
  return takeStep(caller, id, 'submit', deps);
}

/** An administrator approves a queued announcement. */
export function approveAnnouncement(caller: User, id: string, deps: AnnouncementDeps): Promise<AnnouncementResult> {
  return takeStep(caller, id, 'approve', deps);
}

/**
 * An administrator rejects a queued announcement with a reason for its author. The reason is
 * stored and shown to the author; the log and the audit row get only its length.
 */
export function rejectAnnouncement(caller: User, id: string, reason: string, deps: AnnouncementDeps): Promise<AnnouncementResult> {
  return takeStep(caller, id, 'reject', deps, reason);
}

/** An administrator publishes an approved announcement and its fan-out is enqueued (see the file comment). */
export function publishAnnouncement(caller: User, id: string, deps: AnnouncementDeps): Promise<AnnouncementResult> {
  return takeStep(caller, id, 'publish', deps);
}

async function takeStep(
  caller: User,
  id: string,
  action: WorkflowAction,
  deps: AnnouncementDeps,
  rejectionReason?: string,
): Promise<AnnouncementResult> {
  const rule = TRANSITIONS[action];
  if (!holdsActorRole(caller, rule.actor)) return failure(problem('forbidden', { detail: ROLE_REFUSALS[action] }));
  const db = await deps.database.get();
  const current = await findAnnouncementById(db, id);
  if (!current || !canRead(caller, current)) return failure(problem('not_found', { detail: 'No such announcement.' }));
  if (rule.actor === 'author' && current.authorId !== caller.id) {
    return failure(problem('forbidden', { detail: 'Only its author submits an announcement.' }));
  }
  if (action === 'publish' && current.status === 'published' && current.fanoutEnqueuedAt === null) {
    const claimedAt = deps.clock.now();
    if (!(await claimOwedFanout(id, claimedAt, deps))) return refuseTransition(current, action, deps);
    return publishFanout(current, claimedAt.toISOString(), deps, true);
  }
  const to = nextStatus(action, current.status);
  if (!to) return refuseTransition(current, action, deps);

  const now = deps.clock.now();
  const stamp = now.toISOString();
  const details: AuditDetails = {
    ...(rejectionReason === undefined ? {} : { reasonLength: rejectionReason.length }),
    ...(action === 'publish' ? { channels: current.channels.join(',') } : {}),
  };
  const step = { auditEvent: rule.auditEvent, logMessage: rule.logMessage, actor: caller, announcement: current, status: to, details };
  const changed = await db.transaction(async (tx) => {
    if (!(await applyChange(tx, current, action, caller, stamp, rejectionReason))) return false;
    await auditStep(tx, step, deps);
    return true;
  });
  if (!changed) return refuseTransition(current, action, deps);
  await announceStep(step, deps);

  const updated = await findAnnouncementById(db, id);
  if (!updated) throw new Error('announcement vanished during a workflow step');
  return action === 'publish' ? publishFanout(updated, stamp, deps, false) : { ok: true, announcement: updated };
}

function applyChange(
  tx: SqlExecutor,
  current: Announcement,
  action: WorkflowAction,
  caller: User,
  now: string,
  rejectionReason: string | undefined,
): Promise<boolean> {
  switch (action) {
    case 'submit':
      return markSubmitted(tx, current.id, current.status, now);
    case 'approve':
      return markReviewed(tx, current.id, { status: 'approved', reviewerId: caller.id, rejectionReason: null }, now);
    case 'reject':
      return markReviewed(tx, current.id, { status: 'rejected', reviewerId: caller.id, rejectionReason: rejectionReason ?? null }, now);
    case 'publish':
      return markPublished(tx, current.id, caller.id, now);
  }
}

/**
 * Puts `{ announcementId }` on the fan-out queue and records that it did.
 * @param claimedAt when the caller claimed the enqueue (the publish step's time, or the retry's claim).
 * @param retry true when an earlier publish committed but could not enqueue.
 */
async function publishFanout(announcement: Announcement, claimedAt: string, deps: AnnouncementDeps, retry: boolean): Promise<AnnouncementResult> {
  let enqueuedAt: string;
  try {
    enqueuedAt = await enqueueClaimedFanout(announcement.id, claimedAt, deps);
  } catch (error) {
    if (!(error instanceof DependencyUnavailableError) || error.dependency !== 'queue') throw error;
    deps.logger.warn({ announcementId: announcement.id, retry }, 'fan-out not enqueued: publishing again retries it');
    return failure(
      problem('service_unavailable', {
        cause: error,
        detail: 'The announcement is published but its notifications could not be queued; publish it again to retry.',
      }),
    );
  }
  deps.logger.info({ announcementId: announcement.id, retry }, 'fan-out enqueued');
  return { ok: true, announcement: { ...announcement, fanoutEnqueuedAt: announcement.fanoutEnqueuedAt ?? enqueuedAt } };
}

function refuseTransition(current: Announcement, action: WorkflowAction, deps: AnnouncementDeps): AnnouncementResult {
  deps.logger.info({ announcementId: current.id, action, currentStatus: current.status }, 'announcement transition refused');
  return failure(problem('invalid_transition', { detail: `An announcement cannot be ${pastTense(action)} from its current status.` }));
}

function pastTense(action: WorkflowAction): string {
  return { submit: 'submitted', approve: 'approved', reject: 'rejected', publish: 'published' }[action];
}

function failure(value: Problem): AnnouncementResult {
  return { ok: false, problem: value };
}
