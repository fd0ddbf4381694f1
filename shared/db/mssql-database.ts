import type * as mssql from 'mssql';
import { errorFields, type Logger } from '../logging/logger';
import { DATABASE_RETRY_POLICY, retryWithBackoff, type BackoffPolicy, type BackoffRun } from '../resilience/retry-with-backoff';
import {
  checkLockRequest,
  type Database,
  type LockOptions,
  type SqlParams,
  type SqlRow,
  type TransactionExecutor,
  type TransactionOptions,
} from './database';
import { mssqlConfigFromConnectionString } from './mssql-config';
import { tediousDriver, type DriverPool, type DriverRequest, type DriverTransaction, type MssqlDriver, type RequestOverrides } from './mssql-driver';
import { classifyMssqlFault, PoolConnectError, translateMssqlError, type MssqlFault } from './mssql-faults';
import { normalizeMssqlRow, toMssqlParameter } from './mssql-values';
import { SerialQueue } from './serial-queue';
import { TransactionScope } from './transaction-scope';

/**
 * The `Database` port on SQL Server / Azure SQL through `mssql` (tedious). One connection pool per
 * instance, created on first use; statements outside a transaction borrow any pooled connection,
 * a transaction keeps one connection from `begin` to `commit`/`rollback`.
 *
 * Transient faults (a deadlock victim, a failover, a busy service: `mssql-faults.ts`) are retried
 * with jittered backoff inside the running time budget, each retry a warn line, as far as that is
 * safe: a read always, a write outside a transaction only when it surely was not applied, a whole
 * transaction when it failed before its COMMIT was sent. A COMMIT is retried only when it never
 * reached the server; one that failed there or whose answer was lost may have taken effect, so it
 * fails as `DependencyUnavailableError('database')`, as does a fault that outlives its retries.
 */

export interface MssqlDatabaseOptions {
  /** Where retries and connection-pool trouble that no caller is waiting for are reported. */
  logger?: Logger;
  /** Default the `mssql` package; tests pass fakes. */
  driver?: MssqlDriver;
  /** How long one statement may run (the driver's `requestTimeout`); default the connection string's, else 15 s. */
  requestTimeoutMs?: number;
  /** The retry policy, and the waits and randomness behind it (tests). */
  retry?: { policy?: BackoffPolicy } & Pick<BackoffRun, 'sleep' | 'random' | 'now'>;
}

/** What a lock request may take beyond its lock timeout before the driver gives up on it. */
const LOCK_REQUEST_MARGIN_MS = 5000;

/**
 * An exclusive application lock owned by the transaction (released at its end); a lock not granted
 * in time (-1), cancelled (-2) or lost to a deadlock (-3) becomes error 51002, a transient fault;
 * parameters the procedure refuses (-999) become 51003, a bug.
 */
export const LOCK_STATEMENT = `DECLARE @lockResult int;
EXEC @lockResult = sp_getapplock @Resource = @resource, @LockMode = N'Exclusive', @LockOwner = N'Transaction', @LockTimeout = @timeoutMs;
IF @lockResult IN (-1, -2, -3) THROW 51002, N'The lock was not granted in time', 1;
IF @lockResult < 0 THROW 51003, N'sp_getapplock refused its parameters', 1;`;

/**
 * `tryLock`'s lock: as `LOCK_STATEMENT`, but a wait that ran out (-1) is answered as the result
 * (`lockResult` -1; 0 or 1 granted) instead of an error, which would end the transaction and run
 * it again. A timeout leaves the transaction as it was (the lock request alone failed).
 */
export const TRY_LOCK_STATEMENT = `DECLARE @lockResult int;
EXEC @lockResult = sp_getapplock @Resource = @resource, @LockMode = N'Exclusive', @LockOwner = N'Transaction', @LockTimeout = @timeoutMs;
IF @lockResult IN (-2, -3) THROW 51002, N'The lock was not granted', 1;
IF @lockResult < -1 THROW 51003, N'sp_getapplock refused its parameters', 1;
SELECT @lockResult AS lockResult;`;

/**
 * Creates the SQL Server database for `connectionString`. The configuration is checked now
 * (`ConfigError` for a string that cannot be used); the connection is made by the first statement.
 * When connecting fails the statement rejects with `DependencyUnavailableError('database')` (the
 * driver's error as `cause`), and the next statement tries again with a fresh pool.
 * @param connectionString `SQL_CONNECTION_STRING`; see `mssqlConfigFromConnectionString`.
 */
export function createMssqlDatabase(connectionString: string, options: MssqlDatabaseOptions = {}): Database {
  const config = mssqlConfigFromConnectionString(connectionString);
  if (options.requestTimeoutMs !== undefined) config.requestTimeout = options.requestTimeoutMs;
  return new MssqlDatabase(config, options);
}

/** One failed attempt: whether it may run again, and the port error to throw if not. */
class AttemptFailure extends Error {
  constructor(
    readonly retriable: boolean,
    readonly failure: unknown,
    readonly fault: MssqlFault | undefined,
  ) {
    super('database attempt failed', { cause: failure });
  }
}

type Operation = 'query' | 'execute' | 'transaction';

class MssqlDatabase implements Database {
  readonly dialect = 'mssql' as const;
  private connecting: Promise<DriverPool> | undefined;
  private closed = false;
  private readonly scope = new TransactionScope();
  private readonly driver: MssqlDriver;

  constructor(
    private readonly config: mssql.config,
    private readonly options: MssqlDatabaseOptions,
  ) {
    this.driver = options.driver ?? tediousDriver();
  }

  async query<T extends object = SqlRow>(sql: string, params?: SqlParams): Promise<T[]> {
    this.scope.assertOutside();
    // A read leaves nothing behind: whatever broke, it may run again.
    return this.withRetries('query', async () => rowsOf<T>(await this.attempt(() => this.send(sql, params), (fault) => fault.kind !== 'permanent')));
  }

  async execute(sql: string, params?: SqlParams): Promise<number> {
    this.scope.assertOutside();
    // A write whose connection broke may have been applied: only one surely not applied runs again.
    return this.withRetries('execute', async () =>
      rowsAffectedOf(await this.attempt(() => this.send(sql, params), (fault) => fault.kind === 'unsent' || fault.kind === 'refused')),
    );
  }

  /** `options.first` changes nothing here: each transaction takes a pooled connection of its own, nothing waits in line. */
  async transaction<T>(work: (tx: TransactionExecutor) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    this.scope.assertOutside();
    return this.withRetries('transaction', () => this.transactionOnce(work));
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1 AS ok');
  }

  async close(): Promise<void> {
    this.scope.assertOutside();
    this.closed = true;
    const connecting = this.connecting;
    this.connecting = undefined;
    const pool = await connecting?.catch(() => undefined);
    await pool?.close();
  }

  private async send(sql: string, params: SqlParams | undefined): Promise<mssql.IResult<Record<string, unknown>>> {
    return runRequest((await this.pool()).request(), sql, params);
  }

  /** Runs one attempt; a failure becomes an `AttemptFailure` that says whether `mayRetry` allows another. */
  private async attempt<R>(action: () => Promise<R>, mayRetry: (fault: MssqlFault) => boolean): Promise<R> {
    try {
      return await action();
    } catch (error) {
      const fault = classifyMssqlFault(error);
      throw new AttemptFailure(mayRetry(fault), translateMssqlError(error), fault);
    }
  }

  private async withRetries<R>(operation: Operation, run: () => Promise<R>): Promise<R> {
    const { policy = DATABASE_RETRY_POLICY, ...waits } = this.options.retry ?? {};
    try {
      return await retryWithBackoff(run, policy, {
        ...waits,
        isRetriable: (error) => error instanceof AttemptFailure && error.retriable,
        onRetry: (error, { attempt, delayMs }) => {
          const fault = error instanceof AttemptFailure ? error.fault : undefined;
          // The server's error number and the driver's code, never the message (it may quote values).
          const logger = this.options.logger;
          if (!logger) return;
          logger.warn(
            { errorCode: 'database_transient_fault', operation, attempt, delayMs, sqlErrorNumber: fault?.number, driverCode: fault?.code },
            'database operation failed for a passing reason: retrying',
          );
        },
      });
    } catch (error) {
      throw error instanceof AttemptFailure ? error.failure : error;
    }
  }

  private async transactionOnce<T>(work: (tx: TransactionExecutor) => Promise<T>): Promise<T> {
    // Nothing has happened before BEGIN is acknowledged: any passing fault may run again.
    const transaction = await this.attempt(async () => {
      const begun = (await this.pool()).transaction();
      await begun.begin();
      return begun;
    }, (fault) => fault.kind !== 'permanent');
    const state = new TransactionState(transaction);
    let result: T;
    try {
      result = await this.scope.run(() => work(state.executor));
    } catch (error) {
      await state.rollback();
      // Uncommitted, so rolled back: the server drops a transaction with its connection.
      const retriable = state.fault !== undefined && state.fault.kind !== 'permanent';
      throw new AttemptFailure(retriable, translateMssqlError(error), state.fault);
    }
    if (state.fault) {
      // The callback went on after a fault that ended the transaction (or left it without its
      // lock): what it did afterwards must not be committed.
      await state.rollback();
      throw new AttemptFailure(true, state.ended, state.fault);
    }
    try {
      await state.commit();
    } catch (error) {
      const fault = classifyMssqlFault(error);
      // Only a COMMIT that never reached the server surely did nothing.
      const unknown = fault.kind === 'lost' || fault.kind === 'refused';
      const logger = this.options.logger;
      if (unknown && logger) {
        logger.warn(
          { errorCode: 'database_commit_unknown', sqlErrorNumber: fault.number, driverCode: fault.code },
          'database commit outcome unknown: not retried',
        );
      }
      await state.rollback();
      throw new AttemptFailure(fault.kind === 'unsent', translateMssqlError(error), fault);
    }
    return result;
  }

  private pool(): Promise<DriverPool> {
    if (this.closed) return Promise.reject(new Error('Database is closed'));
    this.connecting ??= this.connect();
    return this.connecting;
  }

  private async connect(): Promise<DriverPool> {
    // The driver writes defaults into the configuration it is given; each pool gets its own copy.
    const pool = this.driver.createPool({ ...this.config, options: { ...this.config.options }, pool: { ...this.config.pool } });
    // Without a listener an 'error' event would crash the process; callers already get the error.
    pool.onError((error: unknown) => {
      this.options.logger?.warn({ ...errorFields(error) }, 'SQL Server connection pool reported an error');
    });
    try {
      await pool.connect();
      return pool;
    } catch (error) {
      this.connecting = undefined;
      await pool.close().catch(() => undefined);
      throw new PoolConnectError({ cause: error });
    }
  }
}

/**
 * One attempt of a transaction: its connection takes one request at a time, so statements the
 * callback runs side by side (Promise.all) wait their turn, as they would on SQLite. A passing
 * fault ends the transaction on the server; later statements fail the same way at once.
 */
class TransactionState {
  /** The first fault that ended the transaction, if one did, and the port error it became. */
  fault: MssqlFault | undefined;
  ended: unknown;
  private finished = false;
  private readonly queue = new SerialQueue();
  readonly executor: TransactionExecutor;

  constructor(private readonly transaction: DriverTransaction) {
    this.executor = {
      query: <R extends object = SqlRow>(sql: string, params?: SqlParams) =>
        this.run(async () => rowsOf<R>(await runRequest(transaction.request(), sql, params))),
      execute: (sql: string, params?: SqlParams) => this.run(async () => rowsAffectedOf(await runRequest(transaction.request(), sql, params))),
      lock: (resource: string, options?: LockOptions) => {
        const { timeoutMs } = checkLockRequest(resource, options);
        const overrides: RequestOverrides = { requestTimeout: timeoutMs + LOCK_REQUEST_MARGIN_MS };
        return this.run(async () => {
          await runRequest(transaction.request(overrides), LOCK_STATEMENT, { resource, timeoutMs });
        });
      },
      tryLock: (resource: string, options?: LockOptions) => {
        const { timeoutMs } = checkLockRequest(resource, options);
        const overrides: RequestOverrides = { requestTimeout: timeoutMs + LOCK_REQUEST_MARGIN_MS };
        return this.run(async () => {
          const [row] = rowsOf<{ lockResult: unknown }>(await runRequest(transaction.request(overrides), TRY_LOCK_STATEMENT, { resource, timeoutMs }));
          if (typeof row?.lockResult !== 'number') throw new Error('sp_getapplock answered no result');
          return row.lockResult >= 0;
        });
      },
    };
  }

  commit(): Promise<void> {
    this.finished = true;
    return this.queue.run(() => this.transaction.commit());
  }

  /** Fails when the server already rolled back (a deadlock, an error in a trigger); nothing to undo then. */
  async rollback(): Promise<void> {
    this.finished = true;
    await this.queue.run(() => this.transaction.rollback()).catch(() => undefined);
  }

  private run<R>(action: () => Promise<R>): Promise<R> {
    return this.queue.run(async () => {
      if (this.finished) throw new Error('Statement sent through a transaction that has already finished');
      if (this.fault) throw this.ended;
      try {
        return await action();
      } catch (error) {
        const fault = classifyMssqlFault(error);
        const translated = translateMssqlError(error);
        if (fault.kind !== 'permanent') {
          this.fault = fault;
          this.ended = translated;
        }
        throw translated;
      }
    });
  }
}

async function runRequest(request: DriverRequest, sql: string, params: SqlParams | undefined): Promise<mssql.IResult<Record<string, unknown>>> {
  for (const [name, value] of Object.entries(params ?? {})) {
    const parameter = toMssqlParameter(name, value);
    request.input(name, parameter.type, parameter.value);
  }
  return request.query(sql);
}

function rowsOf<T>(result: mssql.IResult<Record<string, unknown>>): T[] {
  return (result.recordset ?? []).map((row) => normalizeMssqlRow(row) as T);
}

/** One statement may report several counts (e.g. IF ... INSERT); triggers set NOCOUNT ON so theirs do not add up. */
function rowsAffectedOf(result: mssql.IResult<unknown>): number {
  return result.rowsAffected.reduce((sum, count) => sum + count, 0);
}
