import type * as mssql from 'mssql';
import { mssqlDriver } from './mssql-driver';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { errorFields, type Logger } from '../logging/logger';
import type { Database, SqlExecutor, SqlParams, SqlRow } from './database';
import { mssqlConfigFromConnectionString } from './mssql-config';
import { normalizeMssqlRow, toMssqlValue, translateMssqlError } from './mssql-values';
import { SerialQueue } from './serial-queue';
import { TransactionScope } from './transaction-scope';

/**
 * The `Database` port on SQL Server / Azure SQL through `mssql` (tedious). One connection pool per
 * instance, created on first use; statements outside a transaction borrow any pooled connection,
 * a transaction keeps one connection from `begin` to `commit`/`rollback`.
 */

export interface MssqlDatabaseOptions {
  /** Where the pool reports connection trouble it cannot hand to a caller. */
  logger?: Logger;
}

/**
 * Creates the SQL Server database for `connectionString`. The configuration is checked now
 * (`ConfigError` for a string that cannot be used); the connection is made by the first statement.
 * When connecting fails the statement rejects with `DependencyUnavailableError('database')` (the
 * driver's error as `cause`), and the next statement tries again with a fresh pool.
 * @param connectionString `SQL_CONNECTION_STRING`; see `mssqlConfigFromConnectionString`.
 */
export function createMssqlDatabase(connectionString: string, options: MssqlDatabaseOptions = {}): Database {
  return new MssqlDatabase(mssqlConfigFromConnectionString(connectionString), options.logger);
}

class MssqlDatabase implements Database {
  readonly dialect = 'mssql' as const;
  private connecting: Promise<mssql.ConnectionPool> | undefined;
  private closed = false;
  private readonly scope = new TransactionScope();

  constructor(
    private readonly config: mssql.config,
    private readonly logger: Logger | undefined,
  ) {}

  async query<T extends object = SqlRow>(sql: string, params?: SqlParams): Promise<T[]> {
    this.scope.assertOutside();
    return rowsOf<T>(await runRequest(await this.pool(), sql, params));
  }

  async execute(sql: string, params?: SqlParams): Promise<number> {
    this.scope.assertOutside();
    return rowsAffectedOf(await runRequest(await this.pool(), sql, params));
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    this.scope.assertOutside();
    const transaction = new (mssqlDriver().Transaction)(await this.pool());
    try {
      await transaction.begin();
    } catch (error) {
      throw translateMssqlError(error);
    }
    // The transaction's connection takes one request at a time; statements the callback runs
    // side by side (Promise.all) wait their turn, as they would on SQLite.
    const queue = new SerialQueue();
    let finished = false;
    const inTransaction = <R>(action: () => Promise<R>): Promise<R> =>
      queue.run(() => {
        if (finished) throw new Error('Statement sent through a transaction that has already finished');
        return action();
      });
    const tx: SqlExecutor = {
      query: <R extends object = SqlRow>(sql: string, params?: SqlParams) =>
        inTransaction(async () => rowsOf<R>(await runRequest(transaction, sql, params))),
      execute: (sql: string, params?: SqlParams) =>
        inTransaction(async () => rowsAffectedOf(await runRequest(transaction, sql, params))),
    };
    try {
      const result = await this.scope.run(() => work(tx));
      finished = true;
      await queue.run(() => transaction.commit());
      return result;
    } catch (error) {
      finished = true;
      // Fails when the server already rolled back (an error in a trigger aborts the transaction).
      await queue.run(() => transaction.rollback()).catch(() => undefined);
      throw translateMssqlError(error);
    }
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

  private pool(): Promise<mssql.ConnectionPool> {
    if (this.closed) return Promise.reject(new Error('Database is closed'));
    this.connecting ??= this.connect();
    return this.connecting;
  }

  private async connect(): Promise<mssql.ConnectionPool> {
    // The driver writes defaults into the configuration it is given; each pool gets its own copy.
    const pool = new (mssqlDriver().ConnectionPool)({
      ...this.config,
      options: { ...this.config.options },
      pool: { ...this.config.pool },
    });
    // Without a listener an 'error' event would crash the process; callers already get the error.
    pool.on('error', (error: unknown) => {
      this.logger?.warn({ ...errorFields(error) }, 'SQL Server connection pool reported an error');
    });
    try {
      await pool.connect();
      return pool;
    } catch (error) {
      this.connecting = undefined;
      await pool.close().catch(() => undefined);
      throw new DependencyUnavailableError('database', { cause: error });
    }
  }
}

async function runRequest(
  source: mssql.ConnectionPool | mssql.Transaction,
  sql: string,
  params: SqlParams | undefined,
): Promise<mssql.IResult<Record<string, unknown>>> {
  const request = source.request();
  for (const [name, value] of Object.entries(params ?? {})) {
    request.input(name, toMssqlValue(name, value));
  }
  try {
    return await request.query<Record<string, unknown>>(sql);
  } catch (error) {
    throw translateMssqlError(error);
  }
}

function rowsOf<T>(result: mssql.IResult<Record<string, unknown>>): T[] {
  return (result.recordset ?? []).map((row) => normalizeMssqlRow(row) as T);
}

/** One statement may report several counts (e.g. IF ... INSERT); triggers set NOCOUNT ON so theirs do not add up. */
function rowsAffectedOf(result: mssql.IResult<unknown>): number {
  return result.rowsAffected.reduce((sum, count) => sum + count, 0);
}
