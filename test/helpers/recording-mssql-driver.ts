import * as mssql from 'mssql';
import type { Database, SqlParams, TransactionExecutor } from '../../shared/db/database';
import { UniqueViolationError } from '../../shared/db/database-errors';
import type { DriverRequest, DriverTransaction, MssqlDriver, SqlParameterType } from '../../shared/db/mssql-driver';
import { serverError } from './scripted-mssql-driver';

/**
 * A stand-in for the `mssql` driver that records every statement the SQL Server adapter sends,
 * exactly as it would reach SQL Server (text, parameters, declared types), so that a real T-SQL
 * grammar can check each one. No SQL Server runs here, so to keep the store contract suites
 * running behind it, it answers from a SQLite database: the few T-SQL spellings the app's own
 * dialect helpers produce are turned into SQLite's (`OFFSET … FETCH NEXT` into `LIMIT … OFFSET`,
 * `OPENJSON(@rows) WITH (…)` into `json_each`, `OUTPUT inserted.…` into `RETURNING`, an update
 * through a join into SQLite's `UPDATE … FROM`, locking hints dropped),
 * the lock statement and the schema-migrations bootstrap are recorded but not run. Anything else
 * that SQLite cannot run fails the suite, which is the point.
 */

export interface RecordedStatement {
  sql: string;
  params: Record<string, SqlParameterType>;
  values: Record<string, string | number | null>;
  /** `pool` outside a transaction, `tx<n>` inside the n-th transaction this log saw. */
  on: string;
}

/** Every statement recorded, in order (the same text may appear many times). */
export class StatementLog {
  readonly statements: RecordedStatement[] = [];
  private transactions = 0;

  record(statement: RecordedStatement): void {
    this.statements.push(statement);
  }

  /** A name for the next transaction's statements. */
  nextTransaction(): string {
    this.transactions += 1;
    return `tx${this.transactions}`;
  }

  /** Each distinct statement text once. */
  distinctTexts(): string[] {
    return [...new Set(this.statements.map((statement) => statement.sql))];
  }
}

/** T-SQL the adapter itself sends that SQLite has no use for: its locks (BEGIN IMMEDIATE serializes already) and DDL bootstraps. */
const RECORD_ONLY = [/\bsp_getapplock\b/, /^\s*IF OBJECT_ID\(/];

/** The app's paging clause for SQL Server, and SQLite's spelling of it. */
const FETCH_CLAUSE = /OFFSET\s+(@\w+|\d+)\s+ROWS\s+FETCH\s+NEXT\s+(@\w+)\s+ROWS\s+ONLY/g;

/** The app's JSON row source for SQL Server (`jsonRowsSource`), and SQLite's spelling of it. */
const OPENJSON_SOURCE = /OPENJSON\((@\w+)\) WITH \(((?:[^()]|\([^()]*\))*)\)/g;
const OPENJSON_COLUMN = /(\w+) nvarchar\(\d+\) '\$\.(\w+)'/g;

function toSqliteJsonSource(_match: string, json: string, columns: string): string {
  const fields = [...columns.matchAll(OPENJSON_COLUMN)].map(([, name, path]) => `json_extract(value, '$.${path}') AS ${name}`);
  return `(SELECT ${fields.join(', ')} FROM json_each(${json}))`;
}

/** T-SQL's update through a join (`UPDATE d SET … FROM T AS d JOIN j ON … WHERE …`), and SQLite's `UPDATE T AS d SET … FROM j WHERE … AND …`. */
const UPDATE_JOIN = /UPDATE (\w+) (SET [\s\S]*?) FROM (\w+) AS \1 JOIN (\w+) ON ([\s\S]*?) WHERE /g;

/** T-SQL's `OUTPUT inserted.a, inserted.b` (the rows a statement changed), SQLite's `RETURNING a, b` at the end. */
const OUTPUT_CLAUSE = /\s+OUTPUT\s+(inserted\.\w+(?:\s*,\s*inserted\.\w+)*)/;

/** Locking hints: SQLite's BEGIN IMMEDIATE already serializes writers. */
const TABLE_HINTS = /\s+WITH \((?:UPDLOCK|HOLDLOCK|ROWLOCK)(?:,\s*(?:UPDLOCK|HOLDLOCK|ROWLOCK))*\)/g;

function outputToReturning(sql: string): string {
  const output = OUTPUT_CLAUSE.exec(sql);
  if (!output) return sql;
  const columns = (output[1] as string).replace(/inserted\./g, '');
  return `${sql.replace(OUTPUT_CLAUSE, '')} RETURNING ${columns}`;
}

/** What SQLite runs for a statement written for SQL Server by the app's dialect helpers. */
function toSqlite(sql: string): string {
  const translated = sql
    .replace(FETCH_CLAUSE, 'LIMIT $2 OFFSET $1')
    .replace(OPENJSON_SOURCE, toSqliteJsonSource)
    .replace(UPDATE_JOIN, 'UPDATE $3 AS $1 $2 FROM $4 WHERE $5 AND ')
    .replace(TABLE_HINTS, '');
  return outputToReturning(translated);
}

/** A SELECT, a WITH whose main statement is a SELECT (not `WITH … ) UPDATE|INSERT|DELETE|MERGE`), or a change that returns its rows. */
const RETURNS_ROWS = /^\s*(SELECT\b|WITH\b(?![\s\S]*\)\s*(UPDATE|INSERT|DELETE|MERGE)\b))|\bRETURNING\b/i;

/** A lock statement that answers with its result (`tryLock`). */
const TRY_LOCK = /\bsp_getapplock\b[\s\S]*\bSELECT @lockResult AS lockResult\b/;

const lockGranted = (): mssql.IResult<Record<string, unknown>> =>
  ({ recordset: [{ lockResult: 0 }], recordsets: [[{ lockResult: 0 }]], rowsAffected: [1], output: {} }) as unknown as mssql.IResult<Record<string, unknown>>;

const noRows = (): mssql.IResult<Record<string, unknown>> =>
  ({ recordset: [], recordsets: [[]], rowsAffected: [0], output: {} }) as unknown as mssql.IResult<Record<string, unknown>>;

/**
 * @param log where statements are recorded.
 * @param sqlite the database that answers; undefined to answer every statement with no rows
 *   (for recording DDL, such as the SQL Server migrations, that SQLite could not run).
 */
export function recordingMssqlDriver(log: StatementLog, sqlite?: Database): MssqlDriver {
  const request = (on: string, executor: () => Promise<Pick<TransactionExecutor, 'query' | 'execute'>>): DriverRequest => {
    const params: Record<string, SqlParameterType> = {};
    const values: Record<string, string | number | null> = {};
    return {
      input(name, type, value) {
        params[name] = type;
        values[name] = value;
      },
      async query(sql) {
        log.record({ sql, params, values, on });
        // `tryLock` reads whether it got the lock: it did (SQLite's transaction serializes anyway).
        if (sqlite && TRY_LOCK.test(sql)) return lockGranted();
        if (!sqlite || RECORD_ONLY.some((pattern) => pattern.test(sql))) return noRows();
        return answer(await executor(), toSqlite(sql), values);
      },
    };
  };
  return {
    createPool() {
      return {
        connect: async () => undefined,
        close: async () => undefined,
        onError: () => undefined,
        request: () => request('pool', async () => sqliteOrFail(sqlite)),
        transaction: () => {
          const on = log.nextTransaction();
          return sqliteTransaction(sqlite, (executor) => request(on, executor));
        },
      };
    },
  };
}

function sqliteOrFail(sqlite: Database | undefined): Database {
  if (!sqlite) throw new Error('no SQLite behind this recording driver');
  return sqlite;
}

/** A SQLite transaction held open from BEGIN until the adapter commits or rolls back. */
function sqliteTransaction(
  sqlite: Database | undefined,
  request: (executor: () => Promise<Pick<TransactionExecutor, 'query' | 'execute'>>) => DriverRequest,
): DriverTransaction {
  const rolledBack = new Error('rolled back');
  let end: (commit: boolean) => void = () => undefined;
  let running: Promise<unknown> = Promise.resolve();
  let begun: Promise<TransactionExecutor> | undefined;
  return {
    begin: async () => {
      if (!sqlite) return;
      const ended = new Promise<boolean>((resolve) => {
        end = resolve;
      });
      begun = new Promise((resolve) => {
        running = sqlite
          .transaction(async (tx) => {
            resolve(tx);
            if (!(await ended)) throw rolledBack;
          })
          .catch((error: unknown) => {
            if (error !== rolledBack) throw error;
          });
      });
      await begun;
    },
    commit: async () => {
      end(true);
      await running;
    },
    rollback: async () => {
      end(false);
      await running;
    },
    request: () =>
      request(async () => {
        if (!begun) throw new Error('statement before BEGIN');
        return begun;
      }),
  };
}

async function answer(
  executor: Pick<TransactionExecutor, 'query' | 'execute'>,
  sql: string,
  values: SqlParams,
): Promise<mssql.IResult<Record<string, unknown>>> {
  try {
    if (RETURNS_ROWS.test(sql)) {
      const recordset = await executor.query<Record<string, unknown>>(sql, values);
      return { recordset, recordsets: [recordset], rowsAffected: [recordset.length], output: {} } as unknown as mssql.IResult<Record<string, unknown>>;
    }
    const changed = await executor.execute(sql, values);
    return { ...noRows(), rowsAffected: [changed] } as mssql.IResult<Record<string, unknown>>;
  } catch (error) {
    // As SQL Server reports it, so the adapter translates it as it would in production.
    if (error instanceof UniqueViolationError) throw serverError(mssql, 2627);
    throw error;
  }
}
