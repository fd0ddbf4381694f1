import { InvocationContext, type Timer } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleApprovalQueue } from '../../functions/queue-depth-timer';
import { approveAnnouncement, submitAnnouncement } from '../../shared/announcement-workflow/take-workflow-step';
import type { AppServices } from '../../shared/composition-root';
import { backgroundHandlerOf } from '../../shared/composition/app-functions';
import { HOUR, MINUTE } from '../auth/flows/flow-harness';
import { createAnnouncementHarness, type AnnouncementHarness } from './announcement-harness';

/**
 * The queue-depth timer against an injected clock (contract section 11): the count of queued
 * announcements, the age of the oldest, the `approval.queue_depth` event and gauge, and the warn
 * line once the oldest has waited more than 48 hours, by the real timer function
 * (functions/queue-depth-timer.ts) through the background wrapper its registration uses.
 */

let t: AnnouncementHarness;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

beforeAll(async () => {
  t = await createAnnouncementHarness();
});

afterAll(async () => {
  await t?.h.close();
});

const timer: Timer = { isPastDue: false, schedule: { adjustForDST: true }, scheduleStatus: { last: '', next: '', lastUpdated: '' } };

function invocation(): InvocationContext {
  return new InvocationContext({
    invocationId: '6a1b3c5d-0000-4000-8000-000000000001',
    functionName: 'queue-depth-timer',
    traceContext: { traceParent: `00-${TRACE_ID}-00f067aa0ba902b7-01`, traceState: '', attributes: {} },
  });
}

/** One run of the real timer function (functions/queue-depth-timer.ts), on the harness's services and its queue. */
async function runTimer(): Promise<void> {
  const services: AppServices = { ...t.h.services, fanoutQueue: t.queue };
  await backgroundHandlerOf<Timer>(sampleApprovalQueue, () => services)(timer, invocation());
}

function lastSample(): { event: unknown; metric: unknown } {
  const event = t.h.telemetry.itemsOf('event', 'approval.queue_depth').at(-1)?.properties;
  const metric = t.h.telemetry.itemsOf('metric', 'approval.queue_depth').at(-1)?.value;
  return { event, metric };
}

const backlogLines = () => t.h.sink.lines.filter((line) => line.message === 'approval queue backlog: an announcement has waited more than 48 hours');

describe('the queue-depth timer', () => {
  let oldest: string;
  let younger: string;

  it('reports an empty queue as depth 0 and age 0, without a warning', async () => {
    await runTimer();
    expect(lastSample()).toEqual({ event: { depth: 0, oldestQueuedAgeHours: 0 }, metric: 0 });
    expect(backlogLines()).toEqual([]);
  });

  it('counts queued announcements only and ages the oldest', async () => {
    oldest = await t.draft();
    younger = await t.draft();
    await t.draft(); // stays a draft: not in the queue
    await submitAnnouncement(t.author, oldest, t.deps);
    t.h.clock.advance(10 * HOUR);
    await submitAnnouncement(t.author, younger, t.deps);
    t.h.clock.advance(20 * HOUR);
    await runTimer();
    expect(lastSample()).toEqual({ event: { depth: 2, oldestQueuedAgeHours: 30 }, metric: 2 });
    expect(backlogLines()).toEqual([]);
  });

  it('does not warn at exactly 48 hours', async () => {
    t.h.clock.advance(18 * HOUR);
    await runTimer();
    expect(lastSample().event).toEqual({ depth: 2, oldestQueuedAgeHours: 48 });
    expect(backlogLines()).toEqual([]);
  });

  it('warns once the oldest has waited more than 48 hours, naming it, under the invocation’s trace id', async () => {
    t.h.clock.advance(15 * MINUTE);
    await runTimer();
    expect(lastSample()).toEqual({ event: { depth: 2, oldestQueuedAgeHours: 48.25 }, metric: 2 });
    expect(backlogLines()).toHaveLength(1);
    expect(backlogLines()[0]).toMatchObject({
      level: 'warn',
      depth: 2,
      oldestQueuedAgeHours: 48.25,
      oldestAnnouncementId: oldest,
      thresholdHours: 48,
      traceId: TRACE_ID,
      userId: null,
    });
  });

  it('follows the next oldest once the oldest is approved', async () => {
    await approveAnnouncement(t.admin, oldest, t.deps);
    await runTimer();
    expect(lastSample()).toEqual({ event: { depth: 1, oldestQueuedAgeHours: 38.25 }, metric: 1 });
    expect(backlogLines()).toHaveLength(1);
    t.h.clock.advance(10 * HOUR);
    await runTimer();
    expect(backlogLines().at(-1)).toMatchObject({ oldestAnnouncementId: younger, oldestQueuedAgeHours: 48.25 });
  });

  it('counts a resubmitted announcement from its new submission', async () => {
    const again = await t.draft();
    await submitAnnouncement(t.author, again, t.deps);
    await approveAnnouncement(t.admin, younger, t.deps);
    await runTimer();
    expect(lastSample().event).toEqual({ depth: 1, oldestQueuedAgeHours: 0 });
  });
});

describe('a failing run', () => {
  it('writes an error line with errorCode and stack, tracks the exception and throws for the host', async () => {
    const broken: AppServices = { ...t.h.services, database: { get: () => Promise.reject(new Error('database gone')), close: async () => undefined } };
    const run = backgroundHandlerOf<Timer>(sampleApprovalQueue, () => broken);
    await expect(run(timer, invocation())).rejects.toThrow('database gone');
    const line = t.h.sink.lines.find((l) => l.message === 'background function failed');
    expect(line).toMatchObject({
      level: 'error',
      errorCode: 'internal_error',
      functionName: 'queue-depth-timer',
      traceId: TRACE_ID,
      stack: expect.stringContaining('database gone'),
    });
    expect(t.h.telemetry.itemsOf('exception').at(-1)).toMatchObject({ properties: { errorCode: 'internal_error', functionName: 'queue-depth-timer' } });
  });
});
