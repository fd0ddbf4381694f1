import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Database } from '../../shared/db/database';
import { migrateDatabase, migrationsFor } from '../../shared/db/migrate';
import type { MigrationDefinition } from '../../shared/db/migration';
import { createSqliteDatabase } from '../../shared/db/sqlite-database';

/** A migrated SQLite file in a folder of its own, the migration a test takes back and forth, and how to remove both. */
export interface MigrationUnderTest {
  db: Database;
  migration: MigrationDefinition & { down: NonNullable<MigrationDefinition['down']> };
  dispose(): Promise<void>;
}

/**
 * Migrates a new SQLite file to the current schema and finds the migration `name` in it.
 * @throws when there is no such migration, or it cannot be taken back.
 */
export async function sqliteMigrationUnderTest(name: string): Promise<MigrationUnderTest> {
  const directory = mkdtempSync(path.join(tmpdir(), `migration-${name.slice(0, 4)}-`));
  const db = createSqliteDatabase(path.join(directory, 'db.sqlite'));
  await migrateDatabase(db);
  const migration = migrationsFor('sqlite').find((definition) => definition.name === name);
  if (!migration?.down) throw new Error(`${name} must be revertible`);
  return {
    db,
    migration: { ...migration, down: migration.down },
    async dispose() {
      await db.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
