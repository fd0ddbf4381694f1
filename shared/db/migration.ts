import type { SqlExecutor } from './database';

/**
 * One schema change. Each dialect has its own list (`migrations/sqlite`, `migrations/mssql`) with
 * the same names in the same order; a migration runs in one transaction together with the row
 * that records it in `SchemaMigrations`, so it is applied entirely or not at all.
 */
export interface MigrationDefinition {
  /** Unique and sortable, the same in both dialects' lists, e.g. `0001-audit-log`. */
  readonly name: string;
  /** Applies the change; one statement per `execute` call. */
  up(tx: SqlExecutor): Promise<void>;
  /** Reverts it; absent where reverting would destroy what must be kept (the audit trail). */
  down?(tx: SqlExecutor): Promise<void>;
}
