import { describe, expect, it } from 'vitest';
import { ANNOUNCEMENT_STATUSES, type AnnouncementStatus } from './announcement';
import { EDITABLE_STATUSES, isEditable, nextStatus, TRANSITIONS, WORKFLOW_ACTIONS, type WorkflowAction } from './announcement-transitions';

/** The whole table, written out by hand from contract section 9: every (action, status) pair not listed is refused. */
const ALLOWED: Record<WorkflowAction, Partial<Record<AnnouncementStatus, AnnouncementStatus>>> = {
  submit: { draft: 'queued', rejected: 'queued' },
  approve: { queued: 'approved' },
  reject: { queued: 'rejected' },
  publish: { approved: 'published' },
};

describe('the announcement transition table', () => {
  const pairs = WORKFLOW_ACTIONS.flatMap((action) => ANNOUNCEMENT_STATUSES.map((from) => [action, from] as const));

  it('covers 4 actions × 5 statuses', () => {
    expect(pairs).toHaveLength(20);
  });

  it.each(pairs)('%s from %s', (action, from) => {
    expect(nextStatus(action, from)).toBe(ALLOWED[action][from]);
  });

  it('allows exactly five steps and nothing out of published', () => {
    expect(pairs.filter(([action, from]) => nextStatus(action, from) !== undefined)).toHaveLength(5);
    for (const action of WORKFLOW_ACTIONS) expect(nextStatus(action, 'published')).toBeUndefined();
  });

  it('gives submit to authors and the review and publish steps to administrators', () => {
    expect(Object.fromEntries(WORKFLOW_ACTIONS.map((action) => [action, TRANSITIONS[action].actor]))).toEqual({
      submit: 'author',
      approve: 'admin',
      reject: 'admin',
      publish: 'admin',
    });
  });

  it('names the contract audit event of each step', () => {
    expect(Object.fromEntries(WORKFLOW_ACTIONS.map((action) => [action, TRANSITIONS[action].auditEvent]))).toEqual({
      submit: 'announcement_submitted',
      approve: 'announcement_approved',
      reject: 'announcement_rejected',
      publish: 'announcement_published',
    });
  });

  it('lets authors edit drafts and rejected announcements only', () => {
    expect(EDITABLE_STATUSES).toEqual(['draft', 'rejected']);
    expect(ANNOUNCEMENT_STATUSES.filter(isEditable)).toEqual(['draft', 'rejected']);
  });
});
