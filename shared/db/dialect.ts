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

/** A column of `jsonRowsSource`: its name in the JSON objects and in the source, and its SQL type. */
export interface JsonRowColumn {
  name: string;
  /** `text(n)`: a string of at most n characters (nvarchar(n) on SQL Server). */
  type: { text: number };
}

/**
 * A table source reading a JSON array of objects from one parameter: how one statement takes many
 * rows with one stable text and one parameter (SQL Server caches one plan; a VALUES list would give a
 * text, and a plan, per row count). Use it after FROM or JOIN, with an alias.
 * @param dialect `db.dialect`.
 * @param json the placeholder holding `JSON.stringify(rows)`.
 * @param columns the fields to read, each a column of the source.
 */
export function jsonRowsSource(dialect: Dialect, json: Placeholder, columns: readonly JsonRowColumn[]): string {
  if (!PLACEHOLDER.test(json)) throw new Error('jsonRowsSource takes a placeholder such as @rows, never values');
  for (const column of columns) {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(column.name) || !Number.isInteger(column.type.text) || column.type.text < 1) {
      throw new Error(`jsonRowsSource: bad column ${JSON.stringify(column)}`);
    }
  }
  switch (dialect) {
    case 'sqlite':
      return `(SELECT ${columns.map((c) => `json_extract(value, '$.${c.name}') AS ${c.name}`).join(', ')} FROM json_each(${json}))`;
    case 'mssql':
      return `OPENJSON(${json}) WITH (${columns.map((c) => `${c.name} nvarchar(${c.type.text}) '$.${c.name}'`).join(', ')})`;
  }
}

/**
 * A common table expression `name` over a JSON array of objects (see `jsonRowsSource`), to start a
 * statement with: `${jsonRowsCte(...)} UPDATE … WHERE key IN (SELECT j.key FROM j)`. On SQLite it is
 * MATERIALIZED, so the rows are read from the JSON once, not once per row the statement looks at.
 */
export function jsonRowsCte(dialect: Dialect, name: string, json: Placeholder, columns: readonly JsonRowColumn[]): string {
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw new Error(`jsonRowsCte: bad name ${JSON.stringify(name)}`);
  const select = `SELECT ${columns.map((c) => c.name).join(', ')} FROM ${jsonRowsSource(dialect, json, columns)} AS rows_`;
  const spelling: Record<Dialect, string> = { sqlite: `WITH ${name} AS MATERIALIZED (${select})`, mssql: `WITH ${name} AS (${select})` };
  return spelling[dialect];
}
