import { describe, expect, it } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import { createLogger } from '../logging/logger';
import { fixedClock } from '../ports/clock';
import { migrateDatabase, migrationsFor } from './migrate';
import { mssqlMigrations } from './migrations/mssql';
import { sqliteMigrations } from './migrations/sqlite';
import { createSqliteDatabase } from './sqlite-database';

describe('migration lists', () => {
  it('name the same migrations in the same order for both engines, sorted and unique', () => {
    const names = sqliteMigrations.map((migration) => migration.name);
    expect(mssqlMigrations.map((migration) => migration.name)).toEqual(names);
    expect([...names].sort()).toEqual(names);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^\d{4}-[a-z0-9-]+$/);
  });

  it('are picked by dialect', () => {
    expect(migrationsFor('sqlite')).toBe(sqliteMigrations);
    expect(migrationsFor('mssql')).toBe(mssqlMigrations);
  });
});

describe('migrateDatabase', () => {
  it('applies each migration in a transaction with its SchemaMigrations row, logging each step', async () => {
    const db = createSqliteDatabase(':memory:');
    const sink = new LogSink();
    const logger = createLogger({ service: 'api', level: 'info', destination: sink });
    try {
      const result = await migrateDatabase(db, { logger, clock: fixedClock('2025-05-06T07:08:09.010Z') });
      expect(result.applied).toEqual(sqliteMigrations.map((migration) => migration.name));
      expect(await db.query('SELECT name, appliedAt FROM SchemaMigrations')).toEqual(
        result.applied.map((name) => ({ name, appliedAt: '2025-05-06T07:08:09.010Z' })),
      );
      expect(sink.withMessage('schema migration applied').map((line) => line.migration)).toEqual(result.applied);
    } finally {
      await db.close();
    }
  });

  it('leaves no trace of a migration that fails half-way', async () => {
    const db = createSqliteDatabase(':memory:');
    try {
      // An index name in the way makes 0001 fail after it created the table and a first index.
      await db.execute('CREATE TABLE Other (eventType TEXT)');
      await db.execute('CREATE INDEX IX_AuditLog_eventType_occurredAt ON Other (eventType)');
      await expect(migrateDatabase(db)).rejects.toThrow(/0001-audit-log/);
      expect(await db.query('SELECT name FROM SchemaMigrations')).toEqual([]);
      expect(await db.query("SELECT name FROM sqlite_master WHERE name LIKE '%AuditLog%' ORDER BY name")).toEqual([
        { name: 'IX_AuditLog_eventType_occurredAt' },
      ]);
    } finally {
      await db.close();
    }
  });
});
