import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import type { Database } from '../../shared/db/database';
import { migrateDatabase } from '../../shared/db/migrate';
import { createMssqlDatabase } from '../../shared/db/mssql-database';
import { createSqliteDatabase } from '../../shared/db/sqlite-database';
import { recordingMssqlDriver, type StatementLog } from '../helpers/recording-mssql-driver';

/** A database for one test and how to get rid of it afterwards. */
export interface TestDatabase {
  db: Database;
  dispose(): Promise<void>;
  /**
   * A second, independent connection to the same database (another app instance), where one
   * process can use both at once: not SQLite, whose waiting for a lock blocks the whole thread
   * (two processes sharing a SQLite file are tested end to end instead).
   */
  reopen?: () => Database;
}

export type TestDatabaseFactory = () => Promise<TestDatabase>;

/** A new SQLite file in a new temporary folder per test. */
export const sqliteTestDatabase: TestDatabaseFactory = async () => {
  const folder = mkdtempSync(join(tmpdir(), 'contract-sqlite-'));
  const db = createSqliteDatabase(join(folder, 'test.sqlite'));
  return {
    db,
    async dispose() {
      await db.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
};

/** The name of the database a connection is in (the SQL Server factory's safety check). */
export const CURRENT_DATABASE_SQL = 'SELECT DB_NAME() AS name';

/** Drops every table of the SQL Server test database (foreign keys first). */
export const DROP_ALL_TABLES_SQL = `
      DECLARE @drop nvarchar(max) = N'';
      SELECT @drop += N'ALTER TABLE ' + QUOTENAME(OBJECT_SCHEMA_NAME(parent_object_id)) + N'.'
        + QUOTENAME(OBJECT_NAME(parent_object_id)) + N' DROP CONSTRAINT ' + QUOTENAME(name) + N'; '
      FROM sys.foreign_keys;
      EXEC sp_executesql @drop;
      SET @drop = N'';
      SELECT @drop += N'DROP TABLE ' + QUOTENAME(SCHEMA_NAME(schema_id)) + N'.' + QUOTENAME(name) + N'; '
      FROM sys.tables WHERE is_ms_shipped = 0;
      EXEC sp_executesql @drop;`;

/**
 * The SQL Server database named by `connectionString`, emptied before each test: every table is
 * dropped. To keep that from ever hitting a real database, its name must contain "test".
 */
export function mssqlTestDatabase(connectionString: string): TestDatabaseFactory {
  return async () => {
    const db = createMssqlDatabase(connectionString);
    const [current] = await db.query<{ name: string }>(CURRENT_DATABASE_SQL);
    if (!current || !/test/i.test(current.name)) {
      await db.close();
      throw new Error('MSSQL_TEST_CONNECTION_STRING must name a throwaway database whose name contains "test"');
    }
    await db.execute(DROP_ALL_TABLES_SQL);
    return {
      db,
      dispose: () => db.close(),
      reopen: () => createMssqlDatabase(connectionString),
    };
  };
}

/** A connection string the recording driver never connects with. */
const RECORDED_CONNECTION = 'Server=recorded.invalid;Database=platform_test;User Id=app;Password=unused';

/**
 * The SQL Server adapter over the recording driver (test/helpers/recording-mssql-driver.ts), answered
 * by a new SQLite file migrated with SQLite's own migrations: every statement a suite sends is
 * recorded in `log` as SQL Server would receive it.
 */
export function recordedMssqlTestDatabase(log: StatementLog): TestDatabaseFactory {
  return async () => {
    const sqlite = await sqliteTestDatabase();
    await migrateDatabase(sqlite.db);
    const db = createMssqlDatabase(RECORDED_CONNECTION, { driver: recordingMssqlDriver(log, sqlite.db) });
    return {
      db,
      async dispose() {
        await db.close();
        await sqlite.dispose();
      },
    };
  };
}

/** The SQL Server adapter over the recording driver alone: every statement answers no rows (DDL, migrations). */
export function recordOnlyMssqlDatabase(log: StatementLog): Database {
  return createMssqlDatabase(RECORDED_CONNECTION, { driver: recordingMssqlDriver(log) });
}

/**
 * Registers a contract suite on every engine there is: SQLite always, SQL Server when
 * `MSSQL_TEST_CONNECTION_STRING` names a throwaway database (a skipped placeholder says so otherwise).
 * Tests may read the environment; this is the one place the contract suites do.
 * @param title the suite's title, for the placeholder.
 * @param register registers the suite for one engine.
 */
export function describeOnEveryEngine(title: string, register: (name: string, factory: TestDatabaseFactory) => void): void {
  register('sqlite', sqliteTestDatabase);
  const connectionString = process.env.MSSQL_TEST_CONNECTION_STRING || undefined;
  if (connectionString) {
    register('mssql', mssqlTestDatabase(connectionString));
  } else {
    describe.skip(`${title}: mssql (skipped: set MSSQL_TEST_CONNECTION_STRING to a throwaway database to run)`, () => {
      it('runs the same contract against SQL Server', () => undefined);
    });
  }
}
