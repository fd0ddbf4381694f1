import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { DatabaseSync, SQLInputValue, SQLOutputValue, StatementSync } from 'node:sqlite';
import { checkLockRequest, type Database, type LockOptions, type SqlParams, type SqlRow, type SqlValue, type TransactionExecutor, type TransactionOptions } from './database';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { UniqueViolationError } from './database-errors';
import { SerialQueue } from './serial-queue';
import { isBlankSql, namedParameters } from './sql-text';
import { TransactionScope } from './transaction-scope';

/**
 * The `Database` port on the SQLite built into Node (`node:sqlite`), for development, tests and
 * single-machine use. One connection per instance: statements run one at a time through a queue,
 * and a transaction holds the queue from `BEGIN IMMEDIATE` to `COMMIT`/`ROLLBACK`, awaits
 * included, so nothing else ever lands inside it. Several processes may share the file: WAL lets
 * readers run beside the writer, and `busy_timeout` makes a writer wait for another's lock.
 */

export interface SqliteDatabaseOptions {
  /**
   * How long a statement waits for another process's write lock before failing with
   * `DependencyUnavailableError('database')`. SQLite waits synchronously, so this also bounds how
   * long the event loop can stall. Default 5000 ms.
   */
  busyTimeoutMs?: number;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5000;
const STATEMENT_CACHE_LIMIT = 200;

/** Primary result codes that mean "cannot use the database now", not "the statement is wrong". */
const UNAVAILABLE_RESULT_CODES = new Set([
  5, // SQLITE_BUSY
  6, // SQLITE_LOCKED
  8, // SQLITE_READONLY
  10, // SQLITE_IOERR
  11, // SQLITE_CORRUPT
  13, // SQLITE_FULL
  14, // SQLITE_CANTOPEN
  26, // SQLITE_NOTADB
]);
/** SQLITE_CONSTRAINT_PRIMARYKEY and SQLITE_CONSTRAINT_UNIQUE. */
const UNIQUE_RESULT_CODES = new Set([1555, 2067]);

interface PreparedStatement {
  statement: StatementSync;
  parameterNames: string[];
  /** True when the statement returns its rows as arrays (Node 22.16 and later), from which `all` builds ordinary objects. */
  returnsArrays: boolean;
}

/**
 * Creates the SQLite database at `path` (`:memory:` for a private in-memory one). Nothing is
 * opened yet: the first statement opens the file, creating its folder if missing. When that fails
 * (unwritable path, not a database) the statement rejects with
 * `DependencyUnavailableError('database')`, whose `cause` is the system's error, and the next
 * statement tries again.
 * @param path the database file.
 * @param options see `SqliteDatabaseOptions`.
 */
export function createSqliteDatabase(path: string, options: SqliteDatabaseOptions = {}): Database {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new RangeError('busyTimeoutMs must be a whole number of milliseconds');
  }
  return new SqliteDatabase(path, busyTimeoutMs);
}

class SqliteDatabase implements Database {
  readonly dialect = 'sqlite' as const;
  private connection: DatabaseSync | undefined;
  private closed = false;
  private readonly queue = new SerialQueue();
  private readonly scope = new TransactionScope();
  private readonly statements = new Map<string, PreparedStatement>();

  constructor(
    private readonly path: string,
    private readonly busyTimeoutMs: number,
  ) {}

  async query<T extends object = SqlRow>(sql: string, params?: SqlParams): Promise<T[]> {
    this.scope.assertOutside();
    return this.queue.run(() => this.all<T>(this.open(), sql, params));
  }

  async execute(sql: string, params?: SqlParams): Promise<number> {
    this.scope.assertOutside();
    return this.queue.run(() => this.run(this.open(), sql, params));
  }

  async transaction<T>(work: (tx: TransactionExecutor) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    this.scope.assertOutside();
    const queued = (task: () => Promise<T>): Promise<T> => (options.first ? this.queue.runFirst(task) : this.queue.run(task));
    return queued(async () => {
      const connection = this.open();
      this.run(connection, 'BEGIN IMMEDIATE');
      let finished = false;
      const assertOpen = (): void => {
        if (finished) throw new Error('Statement sent through a transaction that has already finished');
      };
      const tx: TransactionExecutor = {
        query: async <R extends object = SqlRow>(sql: string, params?: SqlParams): Promise<R[]> => {
          assertOpen();
          return this.all<R>(connection, sql, params);
        },
        execute: async (sql: string, params?: SqlParams): Promise<number> => {
          assertOpen();
          return this.run(connection, sql, params);
        },
        lock: async (resource: string, options?: LockOptions): Promise<void> => {
          checkLockRequest(resource, options);
          assertOpen();
          // Nothing to take: BEGIN IMMEDIATE already holds the database's write lock, which every
          // other transaction, on any connection or process, waits for until this one ends.
        },
        tryLock: async (resource: string, options?: LockOptions): Promise<boolean> => {
          checkLockRequest(resource, options);
          assertOpen();
          // As `lock`: the database's write lock is this transaction's already.
          return true;
        },
      };
      try {
        const result = await this.scope.run(() => work(tx));
        finished = true;
        this.run(connection, 'COMMIT');
        return result;
      } catch (error) {
        finished = true;
        rollbackQuietly(connection);
        throw error;
      }
    });
  }

  async ping(): Promise<void> {
    this.scope.assertOutside();
    // Reads the schema page, so the file itself must answer, not only the library.
    await this.queue.run(() => this.all(this.open(), 'SELECT COUNT(*) AS tableCount FROM sqlite_master'));
  }

  async close(): Promise<void> {
    this.scope.assertOutside();
    await this.queue.run(() => {
      this.closed = true;
      this.statements.clear();
      this.connection?.close();
      this.connection = undefined;
    });
  }

  private open(): DatabaseSync {
    if (this.closed) throw new Error('Database is closed');
    if (this.connection) return this.connection;
    let connection: DatabaseSync | undefined;
    try {
      if (this.path !== ':memory:') mkdirSync(dirname(resolve(this.path)), { recursive: true });
      // Required at the first connection, not at import: a production start (SQL Server) never
      // loads `node:sqlite`, which on Node 22 also prints an experimental-feature warning.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { DatabaseSync: Connection } = require('node:sqlite') as typeof import('node:sqlite');
      connection = new Connection(this.path, { enableForeignKeyConstraints: true, timeout: this.busyTimeoutMs });
      connection.exec(`PRAGMA busy_timeout = ${this.busyTimeoutMs}`);
      connection.exec('PRAGMA journal_mode = WAL');
      // WAL with NORMAL is durable across application crashes; only a power cut may lose the last commits.
      connection.exec('PRAGMA synchronous = NORMAL');
      connection.exec('PRAGMA foreign_keys = ON');
    } catch (error) {
      closeQuietly(connection);
      throw new DependencyUnavailableError('database', { cause: error });
    }
    this.connection = connection;
    return connection;
  }

  private all<T extends object>(connection: DatabaseSync, sql: string, params?: SqlParams): T[] {
    return translateErrors(() => {
      const { statement, parameterNames, returnsArrays } = this.prepare(connection, sql);
      const rows = statement.all(bindParameters(parameterNames, params));
      // node:sqlite's row objects have a null prototype and slow (dictionary) properties; callers
      // get ordinary objects. Built from arrays they cost a fraction of a copy of those objects: the
      // split and the batches of a fan-out read every recipient this way.
      // The names are read each time: a statement SQLite prepared again after a schema change may have others.
      if (returnsArrays) return objectsOf(rows as unknown as SQLOutputValue[][], statement.columns().map((column) => column.name)) as T[];
      return rows.map((row) => ({ ...row }) as T);
    });
  }

  private run(connection: DatabaseSync, sql: string, params?: SqlParams): number {
    return translateErrors(() => {
      const { statement, parameterNames } = this.prepare(connection, sql);
      return Number(statement.run(bindParameters(parameterNames, params)).changes);
    });
  }

  private prepare(connection: DatabaseSync, sql: string): PreparedStatement {
    const cached = this.statements.get(sql);
    if (cached) return cached;
    const statement = connection.prepare(sql);
    // prepare() compiles the first statement only and ignores the rest: refuse rather than drop it.
    const source = statement.sourceSQL;
    if (sql.startsWith(source) && !isBlankSql(sql.slice(source.length))) {
      throw new Error('One statement per call: the SQL text holds more than one statement');
    }
    const prepared = { statement, parameterNames: namedParameters(sql), returnsArrays: returnArrays(statement) };
    if (this.statements.size >= STATEMENT_CACHE_LIMIT) {
      const oldest = this.statements.keys().next();
      if (!oldest.done) this.statements.delete(oldest.value);
    }
    this.statements.set(sql, prepared);
    return prepared;
  }
}

/**
 * Makes `statement` return its rows as arrays when this Node can (22.16 and later).
 * @returns whether it does.
 */
function returnArrays(statement: StatementSync): boolean {
  const capable = statement as Partial<Pick<StatementSync, 'setReturnArrays' | 'columns'>>;
  if (typeof capable.setReturnArrays !== 'function' || typeof capable.columns !== 'function') return false;
  capable.setReturnArrays.call(statement, true);
  return true;
}

/** Rows as ordinary objects; of a name given twice the last column wins, as in node:sqlite's own objects. */
function objectsOf(rows: readonly SQLOutputValue[][], columnNames: readonly string[]): Record<string, SQLOutputValue>[] {
  const objects = new Array<Record<string, SQLOutputValue>>(rows.length);
  for (let index = 0; index < rows.length; index += 1) {
    const values = rows[index] as SQLOutputValue[];
    const object: Record<string, SQLOutputValue> = {};
    for (let column = 0; column < columnNames.length; column += 1) object[columnNames[column] as string] = values[column] as SQLOutputValue;
    objects[index] = object;
  }
  return objects;
}

/**
 * Binds `params` by name. SQLite would bind NULL for a placeholder without a value, where SQL
 * Server refuses the statement; both refuse here, so a misspelt name fails in the SQLite tests.
 */
function bindParameters(parameterNames: readonly string[], params: SqlParams | undefined): Record<string, SQLInputValue> {
  const given = params ?? {};
  for (const name of parameterNames) {
    if (!Object.hasOwn(given, name)) throw new Error(`SQL parameter @${name} has no value`);
  }
  const bound: Record<string, SQLInputValue> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!parameterNames.includes(name)) throw new Error(`SQL parameter @${name} is not used by the statement`);
    bound[name] = toSqliteValue(name, value);
  }
  return bound;
}

function toSqliteValue(name: string, value: SqlValue): SQLInputValue {
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`SQL parameter @${name} is not a finite number`);
    // A JS number would bind as REAL; whole numbers bind as INTEGER, as SQL Server types them.
    return Number.isSafeInteger(value) ? BigInt(value) : value;
  }
  throw new TypeError(`SQL parameter @${name} has an unsupported type`);
}

interface SqliteError extends Error {
  errcode: number;
  errstr: string;
}

function isSqliteError(error: unknown): error is SqliteError {
  return error instanceof Error && typeof (error as Partial<SqliteError>).errcode === 'number';
}

function translateErrors<T>(action: () => T): T {
  try {
    return action();
  } catch (error) {
    if (!isSqliteError(error)) throw error;
    if (UNIQUE_RESULT_CODES.has(error.errcode)) {
      throw new UniqueViolationError(error.message, { cause: error });
    }
    if (UNAVAILABLE_RESULT_CODES.has(error.errcode & 0xff)) {
      throw new DependencyUnavailableError('database', { cause: error });
    }
    throw error;
  }
}

/** SQLite may already have rolled back (on I/O or busy errors); then there is nothing to undo. */
function rollbackQuietly(connection: DatabaseSync): void {
  if (!connection.isTransaction) return;
  try {
    connection.exec('ROLLBACK');
  } catch {
    // The original error is the one worth reporting; a failed rollback leaves SQLite to undo the journal.
  }
}

function closeQuietly(connection: DatabaseSync | undefined): void {
  try {
    connection?.close();
  } catch {
    // Already failing to open; the open error is what the caller needs.
  }
}
