import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../shared/db/database';
import { createMssqlDatabase } from '../../shared/db/mssql-database';
import { createSqliteDatabase } from '../../shared/db/sqlite-database';

/** A database for one test and how to get rid of it afterwards. */
export interface TestDatabase {
  db: Database;
  dispose(): Promise<void>;
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

/**
 * The SQL Server database named by `connectionString`, emptied before each test: every table is
 * dropped. To keep that from ever hitting a real database, its name must contain "test".
 */
export function mssqlTestDatabase(connectionString: string): TestDatabaseFactory {
  return async () => {
    const db = createMssqlDatabase(connectionString);
    const [current] = await db.query<{ name: string }>('SELECT DB_NAME() AS name');
    if (!current || !/test/i.test(current.name)) {
      await db.close();
      throw new Error('MSSQL_TEST_CONNECTION_STRING must name a throwaway database whose name contains "test"');
    }
    await db.execute(`
      DECLARE @drop nvarchar(max) = N'';
      SELECT @drop += N'ALTER TABLE ' + QUOTENAME(OBJECT_SCHEMA_NAME(parent_object_id)) + N'.'
        + QUOTENAME(OBJECT_NAME(parent_object_id)) + N' DROP CONSTRAINT ' + QUOTENAME(name) + N'; '
      FROM sys.foreign_keys;
      EXEC sp_executesql @drop;
      SET @drop = N'';
      SELECT @drop += N'DROP TABLE ' + QUOTENAME(SCHEMA_NAME(schema_id)) + N'.' + QUOTENAME(name) + N'; '
      FROM sys.tables WHERE is_ms_shipped = 0;
      EXEC sp_executesql @drop;`);
    return { db, dispose: () => db.close() };
  };
}
