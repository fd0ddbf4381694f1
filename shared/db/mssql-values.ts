import { mssqlDriver } from './mssql-driver';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import type { SqlRow, SqlValue } from './database';
import { UniqueViolationError } from './database-errors';

/**
 * What crosses between the port and the `mssql` driver: parameter values going in, rows and
 * errors coming out, made to look the way the SQLite adapter shows them.
 */

/** Driver error codes of a connection that failed or was lost, or a request that timed out. */
const UNAVAILABLE_DRIVER_CODES = new Set([
  'ELOGIN',
  'ETIMEOUT',
  'ESOCKET',
  'ECONNCLOSED',
  'ENOTOPEN',
  'EINSTLOOKUP',
  'ENOCONN',
]);

/**
 * SQL Server and Azure SQL error numbers that mean "try again later": deadlock victim, database
 * or service busy, failover in progress, login refused while the database moves.
 */
const TRANSIENT_SERVER_ERRORS = new Set([
  1205, 4060, 4221, 10053, 10054, 10060, 10928, 10929, 40143, 40197, 40501, 40540, 40613, 49918, 49919, 49920,
]);

/** Duplicate key in a unique index (2601) or a primary key / unique constraint (2627). */
const UNIQUE_SERVER_ERRORS = new Set([2601, 2627]);

/**
 * The value to bind for a port parameter: booleans become 1/0 (as on SQLite); the driver infers
 * int, bigint, float or nvarchar from the rest.
 * @param name the parameter's name, for the error of a value that cannot be bound.
 */
export function toMssqlValue(name: string, value: SqlValue): string | number | null {
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`SQL parameter @${name} is not a finite number`);
    return value;
  }
  throw new TypeError(`SQL parameter @${name} has an unsupported type`);
}

/**
 * A driver row as the port promises it: `datetime2` values (JS `Date`s) become ISO 8601 UTC
 * strings and `bit` values become 1/0, so both engines return the same shapes.
 */
export function normalizeMssqlRow(row: Readonly<Record<string, unknown>>): SqlRow {
  const normalized: SqlRow = {};
  for (const [column, value] of Object.entries(row)) {
    normalized[column] = normalizeMssqlValue(value);
  }
  return normalized;
}

function normalizeMssqlValue(value: unknown): SqlValue {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'boolean') return value ? 1 : 0;
  // Other types (binary, arrays of duplicate column names) are outside the port; passed on as they are.
  return value as SqlValue;
}

/**
 * The port's error for a driver error: `DependencyUnavailableError('database')` for connection
 * trouble and transient server errors, `UniqueViolationError` for a duplicate key, else the error
 * itself.
 */
export function translateMssqlError(error: unknown): unknown {
  // The pool (tarn) gives up acquiring a connection with its own TimeoutError.
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new DependencyUnavailableError('database', { cause: error });
  }
  if (!(error instanceof mssqlDriver().MSSQLError)) return error;
  const number = (error as { number?: unknown }).number;
  if (typeof number === 'number' && UNIQUE_SERVER_ERRORS.has(number)) {
    return new UniqueViolationError(error.message, { cause: error });
  }
  if (
    error instanceof mssqlDriver().ConnectionError ||
    UNAVAILABLE_DRIVER_CODES.has(error.code) ||
    (typeof number === 'number' && TRANSIENT_SERVER_ERRORS.has(number))
  ) {
    return new DependencyUnavailableError('database', { cause: error });
  }
  return error;
}
