import type { Dialect } from './database';

/**
 * The few pieces of query text that SQL Server and SQLite spell differently. Everything else in a
 * query is written once; DDL lives in the per-dialect migrations.
 */

/** A named placeholder as queries write it, e.g. `@limit`. */
export type Placeholder = `@${string}`;

const PLACEHOLDER = /^@[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The paging clause: at most `limit` rows, after skipping `offset` rows when given. It goes right
 * after the query's ORDER BY, which SQL Server requires (and which makes paging stable anyway).
 * @param dialect the engine the query runs on (`db.dialect`).
 * @param limit the placeholder holding the row count, e.g. `@limit`.
 * @param offset the placeholder holding the rows to skip, if any.
 */
export function limitClause(dialect: Dialect, limit: Placeholder, offset?: Placeholder): string {
  for (const placeholder of [limit, offset]) {
    if (placeholder !== undefined && !PLACEHOLDER.test(placeholder)) {
      throw new Error('limitClause takes placeholders such as @limit, never values');
    }
  }
  switch (dialect) {
    case 'sqlite':
      return offset ? `LIMIT ${limit} OFFSET ${offset}` : `LIMIT ${limit}`;
    case 'mssql':
      return `OFFSET ${offset ?? '0'} ROWS FETCH NEXT ${limit} ROWS ONLY`;
  }
}
