import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { insertUser } from '../../users/user-store';
import { adultUser, numberedId } from '../../../test/contract/store-fixtures';
import { addPublishedAnnouncement } from '../../../test/notifications/notification-fixtures';
import type { Database } from '../database';
import { migrateDatabase, migrationsFor } from '../migrate';
import { createSqliteDatabase } from '../sqlite-database';

const NOW = '2031-06-01T08:00:00.000Z';
let directory: string | undefined;
let db: Database | undefined;

afterEach(async () => {
  await db?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

describe('migration 0008-delivery-reports (SQLite)', () => {
  it('keeps every ledger row and opt-out through the rebuilds, and goes back and forth', async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'migration-0008-'));
    db = createSqliteDatabase(path.join(directory, 'db.sqlite'));
    await migrateDatabase(db);
    const migration = migrationsFor('sqlite').find((definition) => definition.name === '0008-delivery-reports');
    if (!migration?.down) throw new Error('0008 must be revertible');
    const opened = db;
    await insertUser(opened, adultUser(1));
    await addPublishedAnnouncement(opened, numberedId(1), { id: numberedId(1, 'a'), channels: ['sms', 'email'] });
    const row = (channel: string, result: string) =>
      opened.execute(
        `INSERT INTO NotificationDeliveries (announcementId, userId, channel, result, attempts, providerCode, providerMessageId, claimedUntil, createdAt, updatedAt)
         VALUES (@announcementId, @userId, @channel, @result, 1, NULL, 'm', NULL, @now, @now)`,
        { announcementId: numberedId(1, 'a'), userId: numberedId(1), channel, result, now: NOW },
      );
    await row('sms', 'delivered');
    await row('email', 'failed');
    await opened.execute("INSERT INTO SmsOptOuts (phone, optedOutAt, optedInAt) VALUES ('+15550100001', @now, NULL), ('+15550100002', NULL, @now)", { now: NOW });

    // A rollback to before 0008 takes the later migrations back first, newest first.
    const all = migrationsFor('sqlite');
    for (const later of all.slice(all.indexOf(migration) + 1).reverse()) {
      const undo = later.down;
      if (!undo) throw new Error(`${later.name} must be revertible`);
      await opened.transaction((tx) => undo(tx));
    }
    const down = migration.down;
    await opened.transaction((tx) => down(tx));
    expect(await opened.query('SELECT channel, result FROM NotificationDeliveries ORDER BY channel')).toEqual([
      { channel: 'email', result: 'provider_error' },
      { channel: 'sms', result: 'success' },
    ]);
    expect(await opened.query('SELECT phone FROM SmsOptOuts')).toEqual([{ phone: '+15550100001' }]);

    await opened.transaction((tx) => migration.up(tx));
    await expect(row('push', 'nonsense')).rejects.toThrow();
    await row('push', 'accepted');
    expect(await opened.query("SELECT count(*) AS n FROM NotificationDeliveries WHERE providerMessageId = 'm'")).toEqual([{ n: 3 }]);
    expect(await opened.query('SELECT name FROM sqlite_master WHERE type = \'index\' AND tbl_name = \'NotificationDeliveries\' AND name LIKE \'IX_%\' ORDER BY name')).toEqual([
      { name: 'IX_NotificationDeliveries_accepted_updatedAt' },
      { name: 'IX_NotificationDeliveries_announcementId_result' },
      { name: 'IX_NotificationDeliveries_channel_providerMessageId' },
    ]);
  });
});
