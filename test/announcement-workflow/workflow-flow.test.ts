import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAnnouncementById } from '../../shared/announcements/announcement-store';
import { enqueueOwedFanouts } from '../../shared/announcement-workflow/enqueue-fanout';
import { getAnnouncement, listVisibleAnnouncements } from '../../shared/announcement-workflow/read-announcements';
import {
  approveAnnouncement,
  publishAnnouncement,
  rejectAnnouncement,
  submitAnnouncement,
} from '../../shared/announcement-workflow/take-workflow-step';
import { updateAnnouncement } from '../../shared/announcement-workflow/write-announcement';
import { newTraceId, runWithLogContext } from '../../shared/logging/log-context';
import { detailsOf, expectNoLeaks, HOUR, MINUTE, SECOND } from '../auth/flows/flow-harness';
import { createAnnouncementHarness, type AnnouncementHarness } from './announcement-harness';

/**
 * The workflow use cases in process: the audit rows, info lines and queue-depth telemetry of each
 * step, the rejection reason kept out of everything but the row, the publish step when the queue
 * is down (503, then a retry enqueues once), concurrent reviews, and member visibility.
 */

let t: AnnouncementHarness;

beforeAll(async () => {
  t = await createAnnouncementHarness();
});

afterAll(async () => {
  await t?.h.close();
});

const depthEvents = () =>
  t.h.telemetry.itemsOf('event', 'approval.queue_depth').map((item) => [item.properties.depth, item.properties.oldestQueuedAgeHours]);

describe('one announcement through every step', () => {
  it('audits, logs and reports the queue depth at each step; the reason stays in the row', async () => {
    t.h.telemetry.clear();
    const mark = t.h.auditMark();
    const id = await t.draft();
    t.h.clock.advance(HOUR);
    expect((await submitAnnouncement(t.author, id, t.deps)).ok).toBe(true);
    t.h.clock.advance(3 * HOUR);
    const reason = 'Canary reason: please add the date and the room rz0001';
    t.h.canaries.add(reason);
    const rejected = await rejectAnnouncement(t.admin, id, reason, t.deps);
    expect(rejected.ok && rejected.announcement).toMatchObject({ status: 'rejected', rejectionReason: reason });
    const edited = await updateAnnouncement(t.author, id, { body: 'Canary body edited: Tuesday in room 4 ed0001' }, t.deps);
    t.h.canaries.add('Canary body edited: Tuesday in room 4 ed0001');
    expect(edited.ok && edited.announcement.status).toBe('rejected');
    expect((await submitAnnouncement(t.author, id, t.deps)).ok).toBe(true);
    t.h.clock.advance(HOUR / 2);
    expect((await approveAnnouncement(t.admin, id, t.deps)).ok).toBe(true);
    const published = await publishAnnouncement(t.admin, id, t.deps);
    expect(published.ok && published.announcement.status).toBe('published');

    const rows = t.h.auditAfter(mark);
    expect(rows.map((row) => [row.eventType, row.actorUserId, row.subjectUserId, row.targetType, row.targetId])).toEqual([
      ['announcement_draft_created', t.author.id, t.author.id, 'announcement', id],
      ['announcement_submitted', t.author.id, t.author.id, 'announcement', id],
      ['announcement_rejected', t.admin.id, t.author.id, 'announcement', id],
      ['announcement_submitted', t.author.id, t.author.id, 'announcement', id],
      ['announcement_approved', t.admin.id, t.author.id, 'announcement', id],
      ['announcement_published', t.admin.id, t.author.id, 'announcement', id],
    ]);
    expect(rows.map((row) => detailsOf(row))).toEqual([
      { announcementId: id, role: 'author', status: 'draft', channels: 'push,email' },
      { announcementId: id, role: 'author', status: 'queued' },
      { announcementId: id, role: 'admin', status: 'rejected', reasonLength: reason.length },
      { announcementId: id, role: 'author', status: 'queued' },
      { announcementId: id, role: 'admin', status: 'approved' },
      { announcementId: id, role: 'admin', status: 'published', channels: 'push,email' },
    ]);

    const steps = t.h.sink.lines.filter((line) => line.announcementId === id && typeof line.status === 'string');
    expect(steps.map((line) => [line.message, line.role, line.status, line.level])).toEqual([
      ['announcement draft created', 'author', 'draft', 'info'],
      ['announcement submitted', 'author', 'queued', 'info'],
      ['announcement rejected', 'admin', 'rejected', 'info'],
      ['announcement updated', 'author', 'rejected', 'info'],
      ['announcement submitted', 'author', 'queued', 'info'],
      ['announcement approved', 'admin', 'approved', 'info'],
      ['announcement published', 'admin', 'published', 'info'],
    ]);

    // One event per workflow step (not for the edit), measured after the change; nothing else waits in this queue.
    expect(depthEvents()).toEqual([
      [0, 0],
      [1, 0],
      [0, 0],
      [1, 0],
      [0, 0],
      [0, 0],
    ]);
    expect(t.h.telemetry.itemsOf('metric', 'approval.queue_depth').map((item) => item.value)).toEqual([0, 1, 0, 1, 0, 0]);
    expect(t.queue.messages.filter((message) => message.announcementId === id)).toEqual([{ announcementId: id }]);
    expect(t.h.sink.lines.filter((line) => line.message === 'fan-out enqueued' && line.announcementId === id)).toHaveLength(1);

    const stored = await findAnnouncementById(await t.h.services.database.get(), id);
    expect(stored).toMatchObject({ status: 'published', rejectionReason: null, reviewedBy: t.admin.id, publishedBy: t.admin.id });
    expect(stored?.fanoutEnqueuedAt).not.toBeNull();
  });

  it('puts the actor’s userId on the step line from the request’s log context', async () => {
    const traceId = newTraceId();
    const id = await runWithLogContext({ traceId, userId: t.author.id }, () => t.draft());
    const line = t.h.sink.lines.find((l) => l.message === 'announcement draft created' && l.announcementId === id);
    expect(line).toMatchObject({ userId: t.author.id, traceId, role: 'author', status: 'draft' });
    expect(t.h.auditRows().find((row) => row.targetId === id)).toMatchObject({ traceId });
  });
});

describe('publishing while the queue is down', () => {
  it('answers 503 with the announcement published, and publishing again enqueues exactly once', async () => {
    const id = await t.draft();
    await submitAnnouncement(t.author, id, t.deps);
    await approveAnnouncement(t.admin, id, t.deps);
    t.queue.down = true;
    const failed = await publishAnnouncement(t.admin, id, t.deps);
    expect(failed.ok).toBe(false);
    if (!failed.ok) expect(failed.problem.code).toBe('service_unavailable');
    const db = await t.h.services.database.get();
    expect(await findAnnouncementById(db, id)).toMatchObject({ status: 'published', fanoutEnqueuedAt: null });
    expect(t.h.sink.lines.find((l) => l.message === 'fan-out not enqueued: publishing again retries it' && l.announcementId === id)).toMatchObject({
      level: 'warn',
      retry: false,
    });

    const stillDown = await publishAnnouncement(t.admin, id, t.deps);
    expect(!stillDown.ok && stillDown.problem.code).toBe('service_unavailable');

    t.queue.down = false;
    const retried = await publishAnnouncement(t.admin, id, t.deps);
    expect(retried.ok).toBe(true);
    expect(t.queue.messages.filter((message) => message.announcementId === id)).toHaveLength(1);
    expect(t.h.sink.lines.find((l) => l.message === 'fan-out enqueued' && l.announcementId === id)).toMatchObject({ retry: true });
    expect((await findAnnouncementById(db, id))?.fanoutEnqueuedAt).not.toBeNull();

    const again = await publishAnnouncement(t.admin, id, t.deps);
    expect(!again.ok && again.problem.code).toBe('invalid_transition');
    expect(t.queue.messages.filter((message) => message.announcementId === id)).toHaveLength(1);
    expect(t.h.auditRows().filter((row) => row.targetId === id && row.eventType === 'announcement_published')).toHaveLength(1);
  });
});

describe('the catch-up of owed fan-outs', () => {
  it('enqueues a fan-out nobody retried once two minutes have passed, once', async () => {
    const id = await t.draft();
    await submitAnnouncement(t.author, id, t.deps);
    await approveAnnouncement(t.admin, id, t.deps);
    t.queue.down = true;
    expect((await publishAnnouncement(t.admin, id, t.deps)).ok).toBe(false);
    await expect(enqueueOwedFanouts(t.deps)).resolves.toBe(0);
    t.h.clock.advance(2 * MINUTE + SECOND);
    await expect(enqueueOwedFanouts(t.deps)).rejects.toThrow('queue unavailable');
    t.queue.down = false;
    await expect(enqueueOwedFanouts(t.deps)).resolves.toBe(1);
    expect(t.queue.messages.filter((message) => message.announcementId === id)).toEqual([{ announcementId: id }]);
    expect(t.h.sink.lines.find((l) => l.message === 'owed fan-out enqueued by the catch-up')).toMatchObject({ level: 'warn', announcementId: id });
    await expect(enqueueOwedFanouts(t.deps)).resolves.toBe(0);
    const again = await publishAnnouncement(t.admin, id, t.deps);
    expect(!again.ok && again.problem.code).toBe('invalid_transition');
  });
});

describe('concurrent reviews', () => {
  it('let exactly one of approve and reject win; the other gets invalid_transition', async () => {
    const id = await t.draft();
    await submitAnnouncement(t.author, id, t.deps);
    const [approved, rejected] = await Promise.all([
      approveAnnouncement(t.admin, id, t.deps),
      rejectAnnouncement(t.admin, id, 'too late', t.deps),
    ]);
    expect([approved.ok, rejected.ok].filter(Boolean)).toHaveLength(1);
    const loser = approved.ok ? rejected : approved;
    expect(!loser.ok && loser.problem.code).toBe('invalid_transition');
    const decisions = t.h.auditRows().filter((row) => row.targetId === id && ['announcement_approved', 'announcement_rejected'].includes(row.eventType));
    expect(decisions).toHaveLength(1);
  });
});

describe('what members and other authors see', () => {
  it('shows published ones and their own; anyone else’s draft is not found', async () => {
    const otherAuthor = await t.h.insertAdult({ role: 'author' });
    const member = await t.h.insertAdult({ role: 'member' });
    const draftId = await t.draft();
    const ownDraft = await t.draft(otherAuthor);
    expect(!(await getAnnouncement(otherAuthor, draftId, t.deps)).ok).toBe(true);
    expect((await getAnnouncement(otherAuthor, ownDraft, t.deps)).ok).toBe(true);
    expect((await getAnnouncement(t.admin, ownDraft, t.deps)).ok).toBe(true);
    const memberList = await listVisibleAnnouncements(member, { limit: 200 }, t.deps);
    expect(memberList.ok && memberList.items.every((item) => item.status === 'published')).toBe(true);
    expect(memberList.ok && memberList.items.length).toBeGreaterThan(0);
    const authorList = await listVisibleAnnouncements(otherAuthor, { limit: 200, status: 'draft' }, t.deps);
    expect(authorList.ok && authorList.items.map((item) => item.id)).toEqual([ownDraft]);
    const submitOther = await submitAnnouncement(otherAuthor, draftId, t.deps);
    expect(!submitOther.ok && submitOther.problem.code).toBe('not_found');
    const adminSubmitsOthers = await submitAnnouncement(t.admin, draftId, t.deps);
    expect(!adminSubmitsOthers.ok && adminSubmitsOthers.problem.code).toBe('forbidden');
  });
});

describe('leaks', () => {
  it('keeps titles, bodies and the rejection reason out of the log, the audit log and telemetry', () => {
    expectNoLeaks(t.h, 10);
  });
});
