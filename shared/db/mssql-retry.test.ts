import * as mssql from 'mssql';
import { describe, expect, it } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import { scriptedMssqlDriver, serverError, type ScriptedAnswer, type ScriptedCall } from '../../test/helpers/scripted-mssql-driver';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { createLogger } from '../logging/logger';
import { runWithTimeBudget } from '../resilience/time-budget';
import { DATABASE_RETRY_POLICY } from '../resilience/retry-with-backoff';
import type { Database } from './database';
import { UniqueViolationError } from './database-errors';
import { LOCK_STATEMENT, TRY_LOCK_STATEMENT, createMssqlDatabase } from './mssql-database';
import { poolTimeoutErrorClass } from './mssql-driver';
import { TRANSIENT_SERVER_ERRORS } from './mssql-faults';

/**
 * The SQL Server adapter's transient-fault policy against a scripted driver that raises each
 * fault (no SQL Server runs here): what is retried, what is not, the warn line of each retry, the
 * backoff and the time budget.
 */

const CONNECTION = 'Server=127.0.0.1,1433;Database=platform_test;User Id=app;Password=Canary-Pa55word;Encrypt=false';

function setup(respond: (call: ScriptedCall, index: number) => ScriptedAnswer) {
  const driver = scriptedMssqlDriver(respond);
  const sink = new LogSink();
  const sleeps: number[] = [];
  const db: Database = createMssqlDatabase(CONNECTION, {
    driver,
    logger: createLogger({ service: 'api', level: 'info', destination: sink }),
    retry: { sleep: async (ms) => void sleeps.push(ms), random: () => 0.5 },
  });
  const retries = () => sink.withMessage('database operation failed for a passing reason: retrying');
  return { driver, sink, sleeps, db, retries };
}

/** Fails the `n`-th time `predicate` matches with `error`, else answers `answer`. */
function failNth(predicate: (call: ScriptedCall) => boolean, failures: ReadonlyMap<number, unknown>, answer: ScriptedAnswer = undefined) {
  let seen = 0;
  return (call: ScriptedCall): ScriptedAnswer => {
    if (!predicate(call)) return answer;
    seen += 1;
    const error = failures.get(seen);
    if (error !== undefined) throw error;
    return answer;
  };
}

const isQuery = (call: ScriptedCall) => call.kind === 'query';
const ROW = { recordset: [{ ok: 1 }] };

describe('reads outside a transaction', () => {
  it.each([...TRANSIENT_SERVER_ERRORS])('retry after server error %i, with one warn line naming the number', async (number) => {
    const { db, driver, retries, sleeps } = setup(failNth(isQuery, new Map([[1, serverError(mssql, number)]]), ROW));
    expect(await db.query('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
    expect(driver.callsOf('query')).toHaveLength(2);
    expect(retries()).toEqual([
      expect.objectContaining({ level: 'warn', errorCode: 'database_transient_fault', operation: 'query', attempt: 1, sqlErrorNumber: number }),
    ]);
    expect(sleeps).toEqual([75]);
  });

  it('retry after a broken connection too: a read leaves nothing behind', async () => {
    const lost = new mssql.ConnectionError('Connection lost - read ECONNRESET', 'ESOCKET');
    const { db, driver, retries } = setup(failNth(isQuery, new Map([[1, lost]]), ROW));
    expect(await db.query('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
    expect(driver.callsOf('query')).toHaveLength(2);
    expect(retries()[0]).toMatchObject({ driverCode: 'ESOCKET' });
  });

  it('back off exponentially with jitter, then fail as an unavailable database carrying the last error', async () => {
    const errors = new Map(Array.from({ length: 5 }, (_, index) => [index + 1, serverError(mssql, 40613)] as const));
    const { db, driver, sleeps, retries, sink } = setup(failNth(isQuery, errors, ROW));
    const error = await db.query('SELECT 1 AS ok').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as Error).cause).toBe(errors.get(5));
    expect(driver.callsOf('query')).toHaveLength(DATABASE_RETRY_POLICY.maxAttempts);
    // Half the step plus half of it at random (0.5 here): 100, 200, 400, 800 ms steps.
    expect(sleeps).toEqual([75, 150, 300, 600]);
    expect(retries().map((line) => line.attempt)).toEqual([1, 2, 3, 4]);
    expect(sink.text).not.toContain('Canary-Pa55word');
  });

  it('stop retrying where the wait would pass the time budget', async () => {
    const { db, driver } = setup(failNth(isQuery, new Map([[1, serverError(mssql, 1205)], [2, serverError(mssql, 1205)]]), ROW));
    let now = 1_000_000;
    const budgeted = createMssqlDatabase(CONNECTION, {
      driver,
      retry: { sleep: async (ms) => void (now += ms), random: () => 0.5, now: () => now },
    });
    // 100 ms of budget: the first wait (75 ms) fits, the second (150 ms) would not.
    const error = await runWithTimeBudget(100, () => budgeted.query('SELECT 1 AS ok'), () => now).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(driver.callsOf('query')).toHaveLength(2);
    await db.close();
  });

  it('do not retry what is not transient: a bug surfaces at once', async () => {
    const syntax = serverError(mssql, 102);
    const { db, driver, retries } = setup(failNth(isQuery, new Map([[1, syntax]]), ROW));
    await expect(db.query('SELEC 1')).rejects.toBe(syntax);
    expect(driver.callsOf('query')).toHaveLength(1);
    expect(retries()).toEqual([]);
  });
});

describe('writes outside a transaction', () => {
  it('retry a write the server refused (deadlock victim: rolled back)', async () => {
    const { db, driver } = setup(failNth(isQuery, new Map([[1, serverError(mssql, 1205)]]), { rowsAffected: [1] }));
    expect(await db.execute('UPDATE T SET a = 1')).toBe(1);
    expect(driver.callsOf('query')).toHaveLength(2);
  });

  it('never retry a write whose connection broke: it may have been applied', async () => {
    const lost = new mssql.ConnectionError('Connection lost - write EPIPE', 'ESOCKET');
    const { db, driver, retries } = setup(failNth(isQuery, new Map([[1, lost]])));
    const error = await db.execute('UPDATE T SET a = a + 1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(driver.callsOf('query')).toHaveLength(1);
    expect(retries()).toEqual([]);
  });

  it('retry when no pooled connection came free in time: nothing was sent', async () => {
    const timeout = new (poolTimeoutErrorClass())('Failed to acquire a connection from the pool: operation timed out');
    const { db, driver, retries } = setup(failNth(isQuery, new Map([[1, timeout]]), { rowsAffected: [1] }));
    expect(await db.execute('UPDATE T SET a = 1')).toBe(1);
    expect(driver.callsOf('query')).toHaveLength(2);
    expect(retries()[0]).toMatchObject({ driverCode: 'EPOOLTIMEOUT' });
  });

  it('retry when the pool could not connect: nothing was sent', async () => {
    const refused = new mssql.ConnectionError('Failed to connect to 127.0.0.1:1433', 'ESOCKET');
    const { db, driver } = setup(failNth((call) => call.kind === 'connect', new Map([[1, refused]])));
    expect(await db.execute('UPDATE T SET a = 1')).toBe(0);
    expect(driver.callsOf('connect')).toHaveLength(2);
  });

  it('do not retry a login refused for good', async () => {
    const login = new mssql.ConnectionError("Login failed for user 'app'.", 'ELOGIN');
    const { db, driver } = setup(failNth((call) => call.kind === 'connect', new Map([[1, login]])));
    const error = await db.execute('UPDATE T SET a = 1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as Error).cause).toBe(login);
    expect(driver.callsOf('connect')).toHaveLength(1);
  });

  it('report a duplicate key as UniqueViolationError, without retrying', async () => {
    const { db, driver } = setup(failNth(isQuery, new Map([[1, serverError(mssql, 2627)]])));
    await expect(db.execute('INSERT INTO T (id) VALUES (@id)', { id: 'x' })).rejects.toBeInstanceOf(UniqueViolationError);
    expect(driver.callsOf('query')).toHaveLength(1);
  });
});

describe('transactions', () => {
  it.each([1205, 1222, 40197, 40613, 49918, 40549, 51002])('run the whole transaction again after server error %i inside it', async (number) => {
    const { db, driver, retries } = setup(failNth(isQuery, new Map([[2, serverError(mssql, number)]]), { rowsAffected: [1] }));
    let runs = 0;
    const result = await db.transaction(async (tx) => {
      runs += 1;
      await tx.execute('UPDATE A SET n = n + 1');
      await tx.execute('UPDATE B SET n = n + 1');
      return 'done';
    });
    expect(result).toBe('done');
    expect(runs).toBe(2);
    expect(driver.calls.map((call) => `${call.on} ${call.kind}`)).toEqual([
      'pool connect',
      'tx1 begin',
      'tx1 query',
      'tx1 query',
      'tx1 rollback',
      'tx2 begin',
      'tx2 query',
      'tx2 query',
      'tx2 commit',
    ]);
    expect(retries()).toEqual([expect.objectContaining({ operation: 'transaction', sqlErrorNumber: number })]);
  });

  it('retry even when the callback wrapped the error (an audit write turns every failure into a 503)', async () => {
    const { db } = setup(failNth(isQuery, new Map([[1, serverError(mssql, 1205)]])));
    let runs = 0;
    await db.transaction(async (tx) => {
      runs += 1;
      try {
        await tx.execute('INSERT INTO AuditLog (id) VALUES (@id)', { id: 'a' });
      } catch (error) {
        throw new DependencyUnavailableError('database', { cause: error });
      }
    });
    expect(runs).toBe(2);
  });

  it('refuse further statements of a transaction the server ended, without sending them', async () => {
    const { db, driver } = setup(failNth(isQuery, new Map([[1, serverError(mssql, 1205)], [2, serverError(mssql, 1205)], [3, serverError(mssql, 1205)], [4, serverError(mssql, 1205)], [5, serverError(mssql, 1205)]])));
    const error = await db
      .transaction(async (tx) => {
        await tx.execute('UPDATE A SET n = 1').catch(() => undefined);
        await tx.execute('UPDATE B SET n = 1');
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    // One statement per attempt reached the driver; the second of each attempt never left.
    expect(driver.callsOf('query')).toHaveLength(DATABASE_RETRY_POLICY.maxAttempts);
  });

  it('go on after a duplicate key the callback handles: it ends only its statement', async () => {
    const { db, driver } = setup(failNth(isQuery, new Map([[1, serverError(mssql, 2601)]]), { rowsAffected: [1] }));
    const result = await db.transaction(async (tx) => {
      const inserted = await tx.execute('INSERT INTO T (id) VALUES (@id)', { id: 'x' }).catch((error: unknown) => {
        if (error instanceof UniqueViolationError) return 0;
        throw error;
      });
      return inserted + (await tx.execute('UPDATE T SET n = n + 1 WHERE id = @id', { id: 'x' }));
    });
    expect(result).toBe(1);
    expect(driver.callsOf('commit')).toHaveLength(1);
  });

  it('never retry a COMMIT that reached the server: refused or lost, it may have taken effect', async () => {
    const lost = new mssql.ConnectionError('Connection lost - read ECONNRESET', 'ESOCKET');
    for (const [failure, driverCode] of [
      [serverError(mssql, 40197), 'EREQUEST'],
      [lost, 'ESOCKET'],
    ] as const) {
      const unknown = setup(failNth((call) => call.kind === 'commit', new Map([[1, failure]])));
      let runs = 0;
      const error = await unknown.db
        .transaction(async (tx) => {
          runs += 1;
          await tx.execute('UPDATE A SET n = n + 1');
        })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DependencyUnavailableError);
      expect(runs).toBe(1);
      expect(unknown.retries()).toEqual([]);
      expect(unknown.sink.withMessage('database commit outcome unknown: not retried')).toEqual([
        expect.objectContaining({ level: 'warn', errorCode: 'database_commit_unknown', driverCode }),
      ]);
    }
  });

  it('retry a COMMIT that never reached the server', async () => {
    const { db } = setup(failNth((call) => call.kind === 'commit', new Map([[1, new mssql.ConnectionError('Connection not yet open.', 'ENOTOPEN')]])));
    let runs = 0;
    await db.transaction(async (tx) => {
      runs += 1;
      await tx.execute('UPDATE A SET n = 1');
    });
    expect(runs).toBe(2);
  });

  it('never commit what a callback did after swallowing the fault that ended its transaction', async () => {
    const { db, driver } = setup(failNth((call) => call.sql === LOCK_STATEMENT, new Map([[1, serverError(mssql, 51002)]])));
    let runs = 0;
    await db.transaction(async (tx) => {
      runs += 1;
      await tx.lock('sign-in:username:abc').catch(() => undefined);
      await tx.execute('UPDATE A SET n = 1').catch(() => undefined);
    });
    expect(runs).toBe(2);
    expect(driver.calls.map((call) => `${call.on} ${call.kind}`)).toEqual([
      'pool connect',
      'tx1 begin',
      'tx1 query',
      'tx1 rollback',
      'tx2 begin',
      'tx2 query',
      'tx2 query',
      'tx2 commit',
    ]);
  });

  it('retry a transaction whose BEGIN failed for a passing reason', async () => {
    const { db, driver } = setup(failNth((call) => call.kind === 'begin', new Map([[1, serverError(mssql, 40501)]])));
    await db.transaction(async (tx) => tx.execute('UPDATE A SET n = 1'));
    expect(driver.callsOf('begin')).toHaveLength(2);
    expect(driver.callsOf('commit')).toHaveLength(1);
  });

  it('do not run the callback again when it failed by itself', async () => {
    const { db, driver } = setup(() => undefined);
    let runs = 0;
    await expect(
      db.transaction(async () => {
        runs += 1;
        throw new Error('bug in the callback');
      }),
    ).rejects.toThrow('bug in the callback');
    expect(runs).toBe(1);
    expect(driver.callsOf('rollback')).toHaveLength(1);
  });
});

describe('explicit locks', () => {
  it('take sp_getapplock for the transaction, with a request timeout above the lock timeout', async () => {
    const { db, driver } = setup(() => undefined);
    await db.transaction(async (tx) => {
      await tx.lock('sign-in:username:abc');
      await tx.lock('push-tokens:user:u1', { timeoutMs: 60_000 });
    });
    expect(driver.callsOf('query').map((call) => [call.sql, call.params, call.overrides])).toEqual([
      [
        LOCK_STATEMENT,
        { resource: { type: { kind: 'nvarchar', length: 4000 }, value: 'sign-in:username:abc' }, timeoutMs: { type: { kind: 'int' }, value: 5000 } },
        { requestTimeout: 10_000 },
      ],
      [
        LOCK_STATEMENT,
        { resource: { type: { kind: 'nvarchar', length: 4000 }, value: 'push-tokens:user:u1' }, timeoutMs: { type: { kind: 'int' }, value: 60_000 } },
        { requestTimeout: 65_000 },
      ],
    ]);
  });

  it('run the transaction again when the lock was not granted in time', async () => {
    const { db, driver } = setup(failNth((call) => call.sql === LOCK_STATEMENT, new Map([[1, serverError(mssql, 51002)]])));
    let runs = 0;
    await db.transaction(async (tx) => {
      runs += 1;
      await tx.lock('sign-in:username:abc');
    });
    expect(runs).toBe(2);
    expect(driver.callsOf('commit')).toHaveLength(1);
  });

  it('try a lock: granted or not from its result, the transaction going on either way, never run again for a wait that ran out', async () => {
    const results = [0, -1, 1];
    const { db, driver } = setup((call) => (call.sql === TRY_LOCK_STATEMENT ? { recordset: [{ lockResult: results.shift() }] } : undefined));
    let runs = 0;
    const got = await db.transaction(async (tx) => {
      runs += 1;
      const first = await tx.tryLock('sign-in:adult-failures', { timeoutMs: 300 });
      const second = await tx.tryLock('sign-in:adult-failures', { timeoutMs: 300 });
      await tx.execute('UPDATE A SET n = 1');
      const third = await tx.tryLock('sign-in:other');
      return [first, second, third];
    });
    expect(got).toEqual([true, false, true]);
    expect(runs).toBe(1);
    expect(driver.callsOf('query').map((call) => [call.sql, call.params?.timeoutMs, call.overrides])).toEqual([
      [TRY_LOCK_STATEMENT, { type: { kind: 'int' }, value: 300 }, { requestTimeout: 5300 }],
      [TRY_LOCK_STATEMENT, { type: { kind: 'int' }, value: 300 }, { requestTimeout: 5300 }],
      ['UPDATE A SET n = 1', undefined, undefined],
      [TRY_LOCK_STATEMENT, { type: { kind: 'int' }, value: 5000 }, { requestTimeout: 10_000 }],
    ]);
    expect(driver.callsOf('commit')).toHaveLength(1);
  });

  it('run the transaction again when a tried lock was cancelled or lost to a deadlock (51002), as a lock', async () => {
    const { db, driver } = setup(
      failNth((call) => call.sql === TRY_LOCK_STATEMENT, new Map([[1, serverError(mssql, 51002)]]), { recordset: [{ lockResult: 0 }] }),
    );
    let runs = 0;
    expect(await db.transaction(async (tx) => {
      runs += 1;
      return tx.tryLock('sign-in:adult-failures', { timeoutMs: 300 });
    })).toBe(true);
    expect(runs).toBe(2);
    expect(driver.callsOf('commit')).toHaveLength(1);
  });

  it('refuse a lock name SQL Server could not take', async () => {
    const { db } = setup(() => undefined);
    await expect(db.transaction((tx) => tx.lock('x'.repeat(256)))).rejects.toThrow(/1 to 255/);
    await expect(db.transaction((tx) => tx.lock(''))).rejects.toThrow(/1 to 255/);
  });
});
