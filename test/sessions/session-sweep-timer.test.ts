import { InvocationContext, type Timer } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepSessions } from '../../functions/session-sweep-timer';
import { backgroundHandlerOf } from '../../shared/composition/app-functions';
import { runWithLogContext } from '../../shared/logging/log-context';
import type { Session } from '../../shared/sessions/session';
import { insertSession } from '../../shared/sessions/session-store';
import { startSession } from '../../shared/sessions/start-session';
import { expiryOf, sweepExpiredSessions, type SessionSweepOptions, type SessionSweepResult } from '../../shared/sessions/sweep-expired-sessions';
import type { User } from '../../shared/users/user';
import { createFlowHarness, DAY, detailsOf, HOUR, type FlowHarness } from '../auth/flows/flow-harness';

/**
 * The session sweep against an injected clock (contract sections 5 and 11): sessions that expired
 * unseen are ended with reason idle or absolute and get a `session_expired` row each; open and
 * already-ended sessions are left alone; a run is batch-limited; a session found expired at sign-in
 * afterwards gets no second row.
 */

let h: FlowHarness;
let adult: User;
let counter = 0;
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

beforeAll(async () => {
  h = await createFlowHarness();
  adult = await h.insertAdult();
});

afterAll(async () => {
  await h?.close();
});

/** A session of `adult` with lifetimes relative to the clock's now, in milliseconds. */
async function session(times: { created: number; idle: number; absolute: number; endedAt?: number }): Promise<string> {
  counter += 1;
  const now = h.clock.now().getTime();
  const at = (offset: number) => new Date(now + offset).toISOString();
  const row: Session = {
    id: `sweep-session-${String(counter).padStart(4, '0')}`,
    userId: adult.id,
    secretHash: 'ab'.repeat(32),
    accountType: 'adult',
    createdAt: at(times.created),
    lastUsedAt: at(times.created),
    idleExpiresAt: at(times.idle),
    absoluteExpiresAt: at(times.absolute),
    endedAt: times.endedAt === undefined ? null : at(times.endedAt),
    endReason: times.endedAt === undefined ? null : 'logout',
    clientLabel: 'unknown',
  };
  await insertSession(await h.services.database.get(), row);
  return row.id;
}

/**
 * One sweep. Without options, a run of the real timer function (functions/session-sweep-timer.ts,
 * through the wrapper its registration uses), its result read from its summary line; with options
 * (smaller batches), the sweep itself under the same trace id.
 */
async function runSweep(options?: SessionSweepOptions): Promise<SessionSweepResult> {
  if (options) return runWithLogContext({ traceId: TRACE_ID, userId: null }, () => sweepExpiredSessions(h.services, options));
  const context = new InvocationContext({
    invocationId: '6a1b3c5d-0000-4000-8000-000000000002',
    functionName: 'session-sweep-timer',
    traceContext: { traceParent: `00-${TRACE_ID}-00f067aa0ba902b7-01`, traceState: '', attributes: {} },
  });
  const timer: Timer = { isPastDue: false, schedule: { adjustForDST: true }, scheduleStatus: { last: '', next: '', lastUpdated: '' } };
  const before = h.sink.lines.length;
  await backgroundHandlerOf<Timer>(sweepSessions, () => h.services)(timer, context);
  // The summary is an info line only when the sweep ended something.
  const summary = h.sink.lines.slice(before).find((line) => line.message === 'expired sessions swept');
  return summary ? { idle: Number(summary.idle), absolute: Number(summary.absolute), more: summary.more === true } : { idle: 0, absolute: 0, more: false };
}

const sessionRow = (id: string) =>
  h.rows<{ endedAt: string | null; endReason: string | null }>('SELECT endedAt, endReason FROM Sessions WHERE id = @id', { id })[0];
const expiredRows = (id: string) => h.auditRows().filter((row) => row.eventType === 'session_expired' && row.targetId === id);

describe('expiryOf', () => {
  it('takes the earlier deadline, and absolute when they coincide', () => {
    expect(expiryOf({ idleExpiresAt: '2031-01-01T00:00:00.000Z', absoluteExpiresAt: '2031-01-05T00:00:00.000Z' })).toEqual({
      reason: 'idle',
      at: new Date('2031-01-01T00:00:00.000Z'),
    });
    expect(expiryOf({ idleExpiresAt: '2031-01-05T00:00:00.000Z', absoluteExpiresAt: '2031-01-05T00:00:00.000Z' })).toEqual({
      reason: 'absolute',
      at: new Date('2031-01-05T00:00:00.000Z'),
    });
  });
});

describe('the session sweep', () => {
  it('ends idle and absolute expiries with one audit row each and leaves open and ended sessions alone', async () => {
    const open = await session({ created: -HOUR, idle: 14 * DAY, absolute: 30 * DAY });
    const idle = await session({ created: -20 * DAY, idle: -DAY, absolute: 10 * DAY });
    const absolute = await session({ created: -31 * DAY, idle: -DAY, absolute: -DAY });
    const idleLongAgo = await session({ created: -40 * DAY, idle: -30 * DAY, absolute: -10 * DAY });
    const loggedOut = await session({ created: -40 * DAY, idle: -30 * DAY, absolute: -10 * DAY, endedAt: -35 * DAY });
    const mark = h.auditMark();

    expect(await runSweep()).toEqual({ idle: 2, absolute: 1, more: false });

    const now = h.clock.now().getTime();
    expect(sessionRow(open)).toEqual({ endedAt: null, endReason: null });
    expect(sessionRow(idle)).toEqual({ endedAt: new Date(now - DAY).toISOString(), endReason: 'idle' });
    expect(sessionRow(absolute)).toEqual({ endedAt: new Date(now - DAY).toISOString(), endReason: 'absolute' });
    expect(sessionRow(idleLongAgo)).toEqual({ endedAt: new Date(now - 30 * DAY).toISOString(), endReason: 'idle' });
    expect(sessionRow(loggedOut)?.endReason).toBe('logout');

    const rows = h.auditAfter(mark);
    expect(rows.map((row) => [row.targetId, row.reason, row.subjectUserId, row.actorUserId, row.outcome, row.targetType, row.traceId])).toEqual([
      [idle, 'idle', adult.id, null, 'success', 'session', TRACE_ID],
      [absolute, 'absolute', adult.id, null, 'success', 'session', TRACE_ID],
      [idleLongAgo, 'idle', adult.id, null, 'success', 'session', TRACE_ID],
    ]);
    expect(rows.map((row) => detailsOf(row).durationSeconds)).toEqual([19 * 86400, 30 * 86400, 10 * 86400]);
    expect(detailsOf(rows[0])).toEqual({ durationSeconds: 19 * 86400, accountType: 'adult', sweep: true });

    const summary = h.sink.lines.filter((line) => line.message === 'expired sessions swept');
    expect(summary.at(-1)).toMatchObject({ level: 'info', idle: 2, absolute: 1, more: false, traceId: TRACE_ID, userId: null });
  });

  it('writes nothing on a run that finds nothing new', async () => {
    const mark = h.auditMark();
    expect(await runSweep()).toEqual({ idle: 0, absolute: 0, more: false });
    expect(h.auditAfter(mark)).toEqual([]);
  });

  it('stops after its batches and finishes on the next run', async () => {
    const ids = [];
    for (let index = 0; index < 5; index += 1) ids.push(await session({ created: -3 * DAY, idle: -HOUR, absolute: 27 * DAY }));
    expect(await runSweep({ batchSize: 2, maxBatches: 2 })).toEqual({ idle: 4, absolute: 0, more: true });
    expect(ids.filter((id) => sessionRow(id)?.endReason === 'idle')).toHaveLength(4);
    expect(await runSweep({ batchSize: 2, maxBatches: 2 })).toEqual({ idle: 1, absolute: 0, more: false });
    for (const id of ids) expect(expiredRows(id)).toHaveLength(1);
  });

  it('leaves no second row when a swept session is presented afterwards', async () => {
    const started = await startSession(await h.services.database.get(), adult, h.clock.now(), {
      random: h.services.random,
      policy: h.services.sessionPolicy,
    });
    h.canaries.add(started.token, started.token.split('.')[1] ?? '');
    h.clock.advance(15 * DAY);
    // This one and the session the first test left open, which has run out by now too.
    expect(await runSweep()).toEqual({ idle: 2, absolute: 0, more: false });
    expect((await h.authenticate(started.token)).ok).toBe(false);
    expect(expiredRows(started.session.id)).toHaveLength(1);
  });

  it('leaks no session token into the log or the audit log', () => {
    expect(h.canaries.size).toBeGreaterThanOrEqual(2);
    expect(h.sink.raw.length).toBeGreaterThan(0);
    expect(h.leaks()).toEqual({ log: [], audit: [], telemetry: [] });
  });
});
