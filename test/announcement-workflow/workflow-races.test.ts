import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnnouncementDeps, AnnouncementResult } from '../../shared/announcement-workflow/announcement-deps';
import {
  approveAnnouncement,
  publishAnnouncement,
  rejectAnnouncement,
  submitAnnouncement,
} from '../../shared/announcement-workflow/take-workflow-step';
import { createAnnouncementHarness, type AnnouncementHarness } from './announcement-harness';

/**
 * Each workflow step happens once. Twenty calls of one step on one announcement
 * at once: exactly one succeeds, the others get 409 `invalid_transition`, and there is exactly one
 * audit row of the step (and, for publish, exactly one fan-out message). In process, on one
 * instance: node:sqlite waits for another connection's write lock synchronously, so two instances
 * in one process would block each other's event loop; test/e2e/announcements.e2e.test.ts runs the
 * same race over two hosts (two processes) on one database.
 */

const CALLS = 20;

let t: AnnouncementHarness;

beforeAll(async () => {
  t = await createAnnouncementHarness();
});

afterAll(async () => {
  await t?.h.close();
});

/** What a queue's round trip takes here: the window between a publish's commit and its enqueue. */
const ENQUEUE_MS = 40;

/**
 * Runs `call` CALLS times, the i-th starting 2·i ms after the first, against a queue that takes
 * ENQUEUE_MS to answer: some calls read the announcement before the winner's commit, some between
 * its commit and its enqueue.
 */
function race(call: (deps: AnnouncementDeps, index: number) => Promise<AnnouncementResult>): Promise<AnnouncementResult[]> {
  const slowQueue: AnnouncementDeps['fanoutQueue'] = {
    async enqueue(message) {
      await new Promise((resolve) => setTimeout(resolve, ENQUEUE_MS));
      await t.queue.enqueue(message);
    },
  };
  const deps = { ...t.deps, fanoutQueue: slowQueue };
  return Promise.all(
    Array.from({ length: CALLS }, async (_, index) => {
      await new Promise((resolve) => setTimeout(resolve, 2 * index));
      return call(deps, index);
    }),
  );
}

function expectOneWinner(results: AnnouncementResult[]): void {
  expect(results.filter((result) => result.ok)).toHaveLength(1);
  const codes = results.flatMap((result) => (result.ok ? [] : [result.problem.code]));
  expect(codes).toEqual(Array.from({ length: CALLS - 1 }, () => 'invalid_transition'));
}

const stepRows = (id: string, eventType: string) => t.h.auditRows().filter((row) => row.targetId === id && row.eventType === eventType);

describe('twenty concurrent calls of one step', () => {
  it('submit: one succeeds, one audit row', async () => {
    const id = await t.draft();
    expectOneWinner(await race((deps) => submitAnnouncement(t.author, id, deps)));
    expect(stepRows(id, 'announcement_submitted')).toHaveLength(1);
  });

  it('approve: one succeeds, one audit row', async () => {
    const id = await t.draft();
    await submitAnnouncement(t.author, id, t.deps);
    expectOneWinner(await race((deps) => approveAnnouncement(t.admin, id, deps)));
    expect(stepRows(id, 'announcement_approved')).toHaveLength(1);
  });

  it('reject: one succeeds, one audit row', async () => {
    const id = await t.draft();
    await submitAnnouncement(t.author, id, t.deps);
    expectOneWinner(await race((deps) => rejectAnnouncement(t.admin, id, 'not this week', deps)));
    expect(stepRows(id, 'announcement_rejected')).toHaveLength(1);
  });

  it('approve and reject mixed: one decision, one audit row', async () => {
    const id = await t.draft();
    await submitAnnouncement(t.author, id, t.deps);
    const results = await race((deps, index) =>
      index % 4 < 2 ? approveAnnouncement(t.admin, id, deps) : rejectAnnouncement(t.admin, id, 'not this week', deps),
    );
    expectOneWinner(results);
    const decisions = t.h.auditRows().filter((row) => row.targetId === id && ['announcement_approved', 'announcement_rejected'].includes(row.eventType));
    expect(decisions).toHaveLength(1);
  });

  it('publish: one succeeds, one audit row, one fan-out message', async () => {
    const id = await t.draft();
    await submitAnnouncement(t.author, id, t.deps);
    await approveAnnouncement(t.admin, id, t.deps);
    expectOneWinner(await race((deps) => publishAnnouncement(t.admin, id, deps)));
    expect(stepRows(id, 'announcement_published')).toHaveLength(1);
    expect(t.queue.messages.filter((message) => message.announcementId === id)).toHaveLength(1);
  });

  it('publish again while the queue is down: one retry at a time, then exactly one message', async () => {
    const id = await t.draft();
    await submitAnnouncement(t.author, id, t.deps);
    await approveAnnouncement(t.admin, id, t.deps);
    t.queue.down = true;
    const first = await publishAnnouncement(t.admin, id, t.deps);
    expect(!first.ok && first.problem.code).toBe('service_unavailable');
    t.queue.down = false;
    // The first publish is over (it answered 503): twenty retries at once, one of them enqueues.
    expectOneWinner(await race((deps) => publishAnnouncement(t.admin, id, deps)));
    expect(stepRows(id, 'announcement_published')).toHaveLength(1);
    expect(t.queue.messages.filter((message) => message.announcementId === id)).toHaveLength(1);
  });
});
