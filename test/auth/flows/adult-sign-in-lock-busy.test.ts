import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../../../shared/composition-root';
import type { Database } from '../../../shared/db/database';
import { createFlowHarness, type FlowHarness } from './flow-harness';

/**
 * A failed adult sign-in is recorded under one lock for all of them. On SQL Server a flood queues
 * behind it; a failure that does not get it within `FAILURES_LOCK_WAIT_MS` is answered 429 with
 * `Retry-After: 1` at once, recording nothing, instead of waiting with a pooled connection and
 * ending as a 503. SQLite's lock is always granted, so the busy lock is simulated here: a database
 * whose `tryLock` says no (the SQL Server side is `shared/db/mssql-retry.test.ts`).
 */

let h: FlowHarness;
let busy: AppServices;

beforeAll(async () => {
  h = await createFlowHarness({ identityProvider: true });
  const db = await h.services.database.get();
  const wrapped: Database = {
    dialect: db.dialect,
    query: (sql, params) => db.query(sql, params),
    execute: (sql, params) => db.execute(sql, params),
    ping: () => db.ping(),
    close: () => db.close(),
    transaction: (work) => db.transaction((tx) => work({ ...tx, tryLock: async () => false })),
  };
  busy = { ...h.services, corePorts: { ...h.services.corePorts, database: { ...h.services.database, get: async () => wrapped } } };
});

afterAll(async () => {
  await h?.close();
});

const failures = (): number => Number(h.rows<{ n: number }>('SELECT COUNT(*) AS n FROM AdultSignInFailures')[0]?.n);

describe('an adult sign-in failure while the failures lock is busy', () => {
  it('is answered 429 too_many_attempts with Retry-After 1, with no audit row and no failure counted', async () => {
    const mark = h.auditMark();
    const result = await h.signInAdult('not-a-token', busy);
    expect(result).toMatchObject({ ok: false, problem: { code: 'too_many_attempts', headers: { 'Retry-After': '1' } } });
    expect(h.auditAfter(mark)).toEqual([]);
    expect(failures()).toBe(0);
    expect(h.sink.withMessage('sign-in failed').at(-1)).toMatchObject({ reason: 'throttled', scope: 'global', retryAfterSeconds: 1, lockBusy: true });
  });

  it('is recorded as usual (401, one audit row, one failure) once the lock is free', async () => {
    const mark = h.auditMark();
    const result = await h.signInAdult('not-a-token');
    expect(result).toMatchObject({ ok: false, problem: { code: 'invalid_token' } });
    expect(h.auditAfter(mark).map((row) => row.eventType)).toEqual(['authn_login_fail']);
    expect(failures()).toBe(1);
  });
});
