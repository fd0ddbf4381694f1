import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { insertSession } from '../../sessions/session-store';
import { findUserById, insertUser } from '../../users/user-store';
import { tombstoneUser } from '../../users/account-erasure-store';
import { adultUser, childUser, numberedId } from '../../../test/contract/store-fixtures';
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

describe('migration 0015-account-erasure (SQLite)', () => {
  it('rebuilds Users inside its transaction keeping every row and reference, allows `erased` tombstones, and goes back', async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'migration-0015-'));
    db = createSqliteDatabase(path.join(directory, 'db.sqlite'));
    await migrateDatabase(db);
    const migration = migrationsFor('sqlite').find((definition) => definition.name === '0015-account-erasure');
    if (!migration?.down) throw new Error('0015 must be revertible');
    const opened = db;
    const { up, down } = { up: migration.up, down: migration.down };
    await opened.transaction((tx) => down(tx));

    const parent = adultUser(1, { email: 'parent@example.test' });
    const child = childUser(2, parent.id);
    await insertUser(opened, parent);
    await insertUser(opened, child);
    await insertSession(opened, {
      id: 'session-before-erasure',
      userId: child.id,
      secretHash: 'e'.repeat(64),
      accountType: 'child',
      createdAt: NOW,
      lastUsedAt: NOW,
      idleExpiresAt: LATER,
      absoluteExpiresAt: LATER,
      endedAt: null,
      endReason: null,
      clientLabel: 'unknown',
    });
    await expect(opened.execute("UPDATE Users SET status = 'erased' WHERE id = @id", { id: parent.id })).rejects.toThrow();

    await opened.transaction((tx) => up(tx));
    expect(await findUserById(opened, parent.id)).toEqual(parent);
    expect(await findUserById(opened, child.id)).toEqual(child);
    const indexes = (await opened.query<{ name: string }>("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'Users' AND name NOT LIKE 'sqlite_%' ORDER BY name")).map((row) => row.name);
    expect(indexes).toEqual(['IX_Users_parentId', 'IX_Users_status_createdAt', 'IX_Users_status_id', 'UX_Users_issuer_subject']);
    // The references still hold after the rebuild: a session of nobody, or a child of nobody, is refused.
    expect(await opened.query('PRAGMA foreign_key_check')).toEqual([]);
    await expect(insertUser(opened, childUser(3, numberedId(99)))).rejects.toThrow();
    // Only an erased adult may lose the identity.
    await expect(opened.execute('UPDATE Users SET issuer = NULL, subject = NULL WHERE id = @id', { id: parent.id })).rejects.toThrow();
    await opened.transaction((tx) => tombstoneUser(tx, parent.id, LATER));
    expect(await findUserById(opened, parent.id)).toMatchObject({ status: 'erased', issuer: null, subject: null, email: null });

    await opened.transaction((tx) => down(tx));
    // The previous schema has no tombstone: a disabled account under an identity no provider issues.
    expect(await findUserById(opened, parent.id)).toMatchObject({ status: 'disabled', issuer: 'erased', subject: parent.id });
    expect(await opened.query('SELECT id FROM Sessions')).toEqual([{ id: 'session-before-erasure' }]);
    await opened.transaction((tx) => up(tx));
  });
});
