import type { SqlRow, SqlValue } from './database';
import type { SqlParameterType } from './mssql-driver';

/**
 * What crosses between the port and the `mssql` driver: parameter values going in and rows coming
 * out, made to look the way the SQLite adapter shows them (errors: `mssql-faults.ts`).
 */

/** The longest string bound as `nvarchar(4000)`; longer ones are `nvarchar(max)`. */
const NVARCHAR_LIMIT = 4000;

/**
 * The value and declared type to bind for a port parameter. Types are fixed rather than sized to
 * each value (the driver would declare `nvarchar(5)` for "hello" and `nvarchar(6)` for the next
 * value, one cached plan per length): strings are `nvarchar(4000)` (or `max` beyond), whole
 * numbers `int` (or `bigint` beyond its range), others `float`; booleans become 1/0 as on SQLite,
 * and null is an `nvarchar` NULL, which SQL Server converts to the column's type.
 * @param name the parameter's name, for the error of a value that cannot be bound.
 */
export function toMssqlParameter(name: string, value: SqlValue): { type: SqlParameterType; value: string | number | null } {
  if (value === null) return { type: { kind: 'nvarchar', length: NVARCHAR_LIMIT }, value };
  if (typeof value === 'string') {
    return { type: { kind: 'nvarchar', length: value.length <= NVARCHAR_LIMIT ? NVARCHAR_LIMIT : 'max' }, value };
  }
  if (typeof value === 'boolean') return { type: { kind: 'int' }, value: value ? 1 : 0 };
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`SQL parameter @${name} is not a finite number`);
    if (!Number.isInteger(value)) return { type: { kind: 'float' }, value };
    return { type: { kind: value >= -2147483648 && value <= 2147483647 ? 'int' : 'bigint' }, value };
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
