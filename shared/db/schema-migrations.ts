import type { UmzugStorage } from 'umzug';
import type { Database, Dialect, SqlExecutor, TransactionExecutor } from './database';

/**
 * The `SchemaMigrations` table: the names of the migrations applied to this database, read and
 * written through the `Database` port, and the umzug storage built on it.
 */

const CREATE_TABLE: Readonly<Record<Dialect, string>> = {
  sqlite: 'CREATE TABLE IF NOT EXISTS SchemaMigrations (name TEXT NOT NULL PRIMARY KEY, appliedAt TEXT NOT NULL) STRICT',
  mssql: `
    IF OBJECT_ID(N'dbo.SchemaMigrations', N'U') IS NULL
      CREATE TABLE dbo.SchemaMigrations (
        name nvarchar(200) NOT NULL CONSTRAINT PK_SchemaMigrations PRIMARY KEY,
        appliedAt datetime2(3) NOT NULL
      )`,
};

/**
 * How long a migrator waits for another one (two instances starting together) by default: inside
 * an HTTP request's budget, where development migrates on first use. `npm run migrate` waits longer.
 */
export const DEFAULT_MIGRATION_LOCK_TIMEOUT_MS = 8000;

/** Makes concurrent migrators take turns, for the rest of `tx`. */
export async function lockSchemaMigrations(tx: TransactionExecutor, timeoutMs = DEFAULT_MIGRATION_LOCK_TIMEOUT_MS): Promise<void> {
  await tx.lock('SchemaMigrations', { timeoutMs });
}

/** Creates `SchemaMigrations` when missing. */
export async function ensureSchemaMigrationsTable(db: Database, lockTimeoutMs?: number): Promise<void> {
  await db.transaction(async (tx) => {
    await lockSchemaMigrations(tx, lockTimeoutMs);
    await tx.execute(CREATE_TABLE[db.dialect]);
  });
}

/** The names of the applied migrations, sorted. */
export async function appliedMigrationNames(executor: SqlExecutor): Promise<string[]> {
  const rows = await executor.query<{ name: string }>('SELECT name FROM SchemaMigrations ORDER BY name');
  return rows.map((row) => row.name);
}

/** Whether `name` is recorded as applied. */
export async function isMigrationApplied(executor: SqlExecutor, name: string): Promise<boolean> {
  const rows = await executor.query('SELECT name FROM SchemaMigrations WHERE name = @name', { name });
  return rows.length > 0;
}

/** Records `name` as applied at `appliedAt` (ISO 8601), unless it already is. */
export async function recordMigration(executor: SqlExecutor, name: string, appliedAt: string): Promise<void> {
  await executor.execute(
    `INSERT INTO SchemaMigrations (name, appliedAt)
     SELECT @name, @appliedAt WHERE NOT EXISTS (SELECT 1 FROM SchemaMigrations WHERE name = @name)`,
    { name, appliedAt },
  );
}

/** Forgets that `name` was applied. */
export async function forgetMigration(executor: SqlExecutor, name: string): Promise<void> {
  await executor.execute('DELETE FROM SchemaMigrations WHERE name = @name', { name });
}

/**
 * Umzug's storage on `SchemaMigrations`. A migration records itself inside its own transaction
 * (see `migrate.ts`), so by the time umzug calls `logMigration` the row is normally there already;
 * logging and unlogging are idempotent so the storage stays right when used on its own too.
 * @param now the timestamp for a row this storage writes itself.
 * @param lockTimeoutMs how long to wait for another migrator.
 */
export function schemaMigrationsStorage(db: Database, now: () => string, lockTimeoutMs?: number): UmzugStorage<unknown> {
  return {
    async executed() {
      await ensureSchemaMigrationsTable(db, lockTimeoutMs);
      return appliedMigrationNames(db);
    },
    async logMigration({ name }) {
      await recordMigration(db, name, now());
    },
    async unlogMigration({ name }) {
      await forgetMigration(db, name);
    },
  };
}
