import type * as Mssql from 'mssql';

/**
 * The `mssql` package, loaded on first use: it and the Azure identity stack behind it are most of a
 * cold start, and an app on SQLite never needs them.
 */
export function mssqlDriver(): typeof Mssql {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('mssql') as typeof Mssql;
}
