import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateDatabase } from '../shared/db/migrate';
import { createSqliteDatabase } from '../shared/db/sqlite-database';
import { seedFanoutAudience } from './fanout-seed';
import { measureLedgerFloor } from './ledger-floor';

const dir = mkdtempSync(path.join(tmpdir(), 'ledger-floor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('measureLedgerFloor', () => {
  it('writes each recipient\'s claim, result and ticket, one transaction per batch and per push request of 100', async () => {
    const sqlitePath = path.join(dir, 'floor.sqlite');
    const db = createSqliteDatabase(sqlitePath);
    await migrateDatabase(db);
    const announcementId = await seedFanoutAudience(db, 250, new Date(), ['push']);
    await db.close();

    const floor = measureLedgerFloor(sqlitePath, announcementId, 120);
    // Batches of 120, 120, 10; requests of 100 + 20, 100 + 20, 10.
    expect(floor.transactions).toBe(3 + 5);
    expect(floor.rowWrites).toBe(250 * 3);
    expect(floor.ms).toBeGreaterThan(0);

    const check = new DatabaseSync(sqlitePath);
    try {
      expect(check.prepare("SELECT result, COUNT(*) AS n FROM NotificationDeliveries WHERE channel = 'push' GROUP BY result").all()).toEqual([
        { result: 'success', n: 250 },
      ]);
      expect(check.prepare('SELECT COUNT(*) AS n FROM PushTickets').get()).toEqual({ n: 250 });
    } finally {
      check.close();
    }
  });
});
