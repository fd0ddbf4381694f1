import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { insertUser } from '../../users/user-store';
import { adultUser, numberedId } from '../../../test/contract/store-fixtures';
import type { Database } from '../database';
import { migrateDatabase, migrationsFor } from '../migrate';
import { createSqliteDatabase } from '../sqlite-database';

const NOW = '2031-06-01T08:00:00.000Z';
const LATER = '2031-06-30T08:00:00.000Z';
let directory: string | undefined;
let db: Database | undefined;

afterEach(async () => {
  await db?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

describe('migration 0009-session-activity (SQLite)', () => {
  it('labels the sessions that existed before it `unknown`, bounds the label, and goes back and forth keeping the sessions', async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'migration-0009-'));
    db = createSqliteDatabase(path.join(directory, 'db.sqlite'));
    await migrateDatabase(db);
    const migration = migrationsFor('sqlite').find((definition) => definition.name === '0009-session-activity');
    if (!migration?.down) throw new Error('0009 must be revertible');
    const opened = db;
    const down = migration.down;
    await insertUser(opened, adultUser(1));
    await opened.transaction((tx) => down(tx));
    const columns = async () => (await opened.query<{ name: string }>("SELECT name FROM pragma_table_info('Sessions')")).map((c) => c.name);
    expect(await columns()).not.toContain('clientLabel');

    await opened.execute(
      `INSERT INTO Sessions (id, userId, secretHash, accountType, createdAt, lastUsedAt, idleExpiresAt, absoluteExpiresAt)
       VALUES ('session-before-labels', @userId, @hash, 'adult', @now, @now, @later, @later)`,
      { userId: numberedId(1), hash: 'c'.repeat(64), now: NOW, later: LATER },
    );
    await opened.transaction((tx) => migration.up(tx));
    expect(await opened.query('SELECT id, clientLabel FROM Sessions')).toEqual([{ id: 'session-before-labels', clientLabel: 'unknown' }]);
    const labelled = (id: string, label: string) =>
      opened.execute(
        `INSERT INTO Sessions (id, userId, secretHash, accountType, createdAt, lastUsedAt, idleExpiresAt, absoluteExpiresAt, clientLabel)
         VALUES (@id, @userId, @hash, 'adult', @now, @now, @later, @later, @label)`,
        { id, userId: numberedId(1), hash: 'd'.repeat(64), now: NOW, later: LATER, label },
      );
    await labelled('session-ios', 'iOS app');
    await expect(labelled('session-long', 'x'.repeat(33))).rejects.toThrow();
    await expect(labelled('session-empty', '')).rejects.toThrow();

    await opened.transaction((tx) => down(tx));
    expect(await columns()).not.toContain('clientLabel');
    expect(await opened.query('SELECT id FROM Sessions ORDER BY id')).toEqual([{ id: 'session-before-labels' }, { id: 'session-ios' }]);
  });
});
