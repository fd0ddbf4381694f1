import { InvocationContext, type Timer } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAdultFailure } from '../../shared/throttles/adult-sign-in-throttle-store';
import { sweepSignInThrottles, type ThrottleSweepOptions, type ThrottleSweepResult } from '../../shared/auth/sweep-sign-in-throttles';
import { sweepSessions } from '../../functions/session-sweep-timer';
import { backgroundHandlerOf } from '../../shared/composition/app-functions';
import { createFlowHarness, DAY, MINUTE, type FlowHarness } from '../auth/flows/flow-harness';

/**
 * Throttle state expires. Failed child sign-ins (unknown usernames, as a
 * guesser's) and adult failures leave rows; the rows are then aged in the database, and the
 * hourly sweep deletes those idle past the longest window they still affect (30 days for a
 * username's count, 10 minutes for a child's address failure, the adult address window for an
 * adult failure), batch by batch, and keeps the others.
 */

let h: FlowHarness;

beforeAll(async () => {
  h = await createFlowHarness();
});

afterAll(async () => {
  await h?.close();
});

/**
 * One sweep. Without options, a run of the real timer function (functions/session-sweep-timer.ts,
 * which sweeps sessions, then throttle rows), its result read from its summary line; with options,
 * the throttle sweep itself.
 */
async function runSweep(options?: ThrottleSweepOptions): Promise<ThrottleSweepResult> {
  if (options) return sweepSignInThrottles(h.services, options);
  const context = new InvocationContext({ invocationId: '6a1b3c5d-0000-4000-8000-000000000017', functionName: 'session-sweep-timer' });
  const timer: Timer = { isPastDue: false, schedule: { adjustForDST: true }, scheduleStatus: { last: '', next: '', lastUpdated: '' } };
  const before = h.sink.lines.length;
  await backgroundHandlerOf<Timer>(sweepSessions, () => h.services)(timer, context);
  // The summary is an info line only when the sweep removed something.
  const summary = h.sink.lines.slice(before).find((line) => line.message === 'sign-in throttle rows swept');
  const count = (name: string): number => Number(summary?.[name] ?? 0);
  return {
    usernames: count('usernames'),
    addressFailures: count('addressFailures'),
    adultFailures: count('adultFailures'),
    reservedUsernames: count('reservedUsernames'),
    more: summary?.more === true,
  };
}

const count = (table: string): number => Number(h.rows<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`)[0]?.n);
const ago = (ms: number): string => new Date(h.clock.now().getTime() - ms).toISOString();

/** Moves a table's timestamps back by `ms`: rows that were fresh are now that much older. */
async function age(table: 'SignInUsernameFailures' | 'SignInAddressFailures' | 'AdultSignInFailures', ms: number, where = '1 = 1'): Promise<void> {
  const column = table === 'SignInUsernameFailures' ? 'lastFailureAt' : 'failedAt';
  const db = await h.services.database.get();
  const rows = await db.query<{ key: string; at: string }>(`SELECT ${table === 'SignInUsernameFailures' ? 'usernameKey' : 'id'} AS key, ${column} AS at FROM ${table} WHERE ${where}`);
  for (const row of rows) {
    const keyColumn = table === 'SignInUsernameFailures' ? 'usernameKey' : 'id';
    await db.execute(`UPDATE ${table} SET ${column} = @at WHERE ${keyColumn} = @key`, {
      key: row.key,
      at: new Date(Date.parse(row.at) - ms).toISOString(),
    });
  }
}

describe('the throttle sweep', () => {
  it('deletes username rows idle for 30 days and address failures out of their window, keeps the rest', async () => {
    // A guesser: one row per fresh username, one address failure each.
    for (let index = 0; index < 12; index += 1) {
      const answer = await h.signInChild(`canary-guess-${index}`, '6184027', { address: '198.51.100.77' });
      expect(!answer.ok && answer.problem.code).toBe('invalid_credentials');
    }
    expect(count('SignInUsernameFailures')).toBe(12);
    expect(count('SignInAddressFailures')).toBe(12);
    const db = await h.services.database.get();
    for (let index = 0; index < 5; index += 1) {
      await insertAdultFailure(db, { id: `adult-failure-${index}`, addressKey: 'ab'.repeat(32), failedAt: ago(0) });
    }

    // Nothing has expired yet.
    expect(await runSweep()).toEqual({ usernames: 0, addressFailures: 0, adultFailures: 0, reservedUsernames: 0, more: false });

    // Ten of the usernames idle 30 days and a minute; the other two 29 days. All address failures
    // are out of their 10-minute window; three adult failures are out of the 10-minute window.
    await age('SignInUsernameFailures', 30 * DAY + MINUTE);
    const [keep1, keep2] = h.rows<{ usernameKey: string }>('SELECT usernameKey FROM SignInUsernameFailures ORDER BY usernameKey LIMIT 2');
    for (const kept of [keep1, keep2]) {
      await db.execute('UPDATE SignInUsernameFailures SET lastFailureAt = @at WHERE usernameKey = @key', {
        key: kept?.usernameKey ?? '',
        at: ago(29 * DAY),
      });
    }
    await age('SignInAddressFailures', 10 * MINUTE + 1);
    await age('AdultSignInFailures', 10 * MINUTE + 1, "id IN ('adult-failure-0', 'adult-failure-1', 'adult-failure-2')");
    await age('AdultSignInFailures', 9 * MINUTE, "id IN ('adult-failure-3', 'adult-failure-4')");

    expect(await runSweep({ batchSize: 4, maxBatches: 2 })).toEqual({ usernames: 8, addressFailures: 8, adultFailures: 3, reservedUsernames: 0, more: true });
    expect(await runSweep({ batchSize: 4, maxBatches: 2 })).toEqual({ usernames: 2, addressFailures: 4, adultFailures: 0, reservedUsernames: 0, more: false });
    expect(count('SignInUsernameFailures')).toBe(2);
    expect(h.rows('SELECT usernameKey FROM SignInUsernameFailures ORDER BY usernameKey')).toEqual([keep1, keep2]);
    expect(count('SignInAddressFailures')).toBe(0);
    expect(h.rows('SELECT id FROM AdultSignInFailures ORDER BY id')).toEqual([{ id: 'adult-failure-3' }, { id: 'adult-failure-4' }]);

    const lines = h.sink.lines.filter((line) => line.message === 'sign-in throttle rows swept');
    expect(lines.at(-1)).toMatchObject({ level: 'info', usernames: 2, addressFailures: 4, adultFailures: 0, more: false });
  });

  it("deletes an erased child's username reservation once it is released, and keeps one still running", async () => {
    const db = await h.services.database.get();
    const now = h.clock.now().getTime();
    await db.execute('INSERT INTO ReservedUsernames (usernameKey, reservedAt, releasedAt) VALUES (@key, @at, @releasedAt)', {
      key: 'f'.repeat(64),
      at: ago(31 * DAY),
      releasedAt: ago(DAY),
    });
    await db.execute('INSERT INTO ReservedUsernames (usernameKey, reservedAt, releasedAt) VALUES (@key, @at, @releasedAt)', {
      key: 'e'.repeat(64),
      at: ago(DAY),
      releasedAt: new Date(now + 29 * DAY).toISOString(),
    });
    expect(await runSweep()).toMatchObject({ reservedUsernames: 1, more: false });
    expect(h.rows('SELECT usernameKey FROM ReservedUsernames')).toEqual([{ usernameKey: 'e'.repeat(64) }]);
  });

  it('keeps a username that failed again within 30 days: its count still leads to the lock', async () => {
    const answer = await h.signInChild('canary-guess-recent', '6184027', { address: '198.51.100.78' });
    expect(answer.ok).toBe(false);
    // The two rows the first test kept (29 days idle) go; the new one, 30 days less a minute idle, stays.
    await age('SignInUsernameFailures', 30 * DAY - MINUTE);
    expect((await runSweep()).usernames).toBe(2);
    expect(count('SignInUsernameFailures')).toBe(1);
    await age('SignInUsernameFailures', 2 * MINUTE);
    expect((await runSweep()).usernames).toBe(1);
    expect(count('SignInUsernameFailures')).toBe(0);
  });

  it('leaks no username or PIN', () => {
    expect(h.leaks()).toEqual({ log: [], audit: [], telemetry: [] });
  });
});
