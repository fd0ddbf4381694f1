import type { UmzugStorage } from 'umzug';
import type { Database, Dialect, SqlExecutor } from './database';

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
 * Makes concurrent migrators (two app instances starting together) take turns. SQLite needs no
 * statement: every transaction there begins with `BEGIN IMMEDIATE`, which already does it.
 */
const LOCK: Readonly<Record<Dialect, string | null>> = {
  sqlite: null,
  mssql: `
    DECLARE @lockResult int;
    EXEC @lockResult = sp_getapplock @Resource = N'SchemaMigrations', @LockMode = N'Exclusive',
      @LockOwner = N'Transaction', @LockTimeout = 60000;
    IF @lockResult < 0 THROW 51001, 'Could not take the schema migration lock', 1;`,
};

/** Takes the migration lock for the rest of `tx` (see `LOCK`). */
export async function lockSchemaMigrations(tx: SqlExecutor, dialect: Dialect): Promise<void> {
  const statement = LOCK[dialect];
  if (statement) await tx.execute(statement);
}

/** Creates `SchemaMigrations` when missing. */
export async function ensureSchemaMigrationsTable(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    await lockSchemaMigrations(tx, db.dialect);
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
 */
export function schemaMigrationsStorage(db: Database, now: () => string): UmzugStorage<unknown> {
  return {
    async executed() {
      await ensureSchemaMigrationsTable(db);
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
