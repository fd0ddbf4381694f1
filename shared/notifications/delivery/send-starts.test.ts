import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addAdult, addPublishedAnnouncement, migratedMemoryDatabase, T0 } from '../../../test/notifications/notification-fixtures';
import type { Database } from '../../db/database';
import { manualClock } from '../../ports/clock';
import { claimDeliveries, type DeliveryKey } from './delivery-ledger';
import { RESEND_WITHIN_MS, repeatabilityRequestId } from './send-repeatability';
import { MARK_FRESH_MS, SEND_MARK_ROWS, SendStarts } from './send-starts';

let db: Database;
let marks: number;

beforeEach(async () => {
  db = await migratedMemoryDatabase();
  marks = 0;
});

afterEach(async () => {
  await db.close();
});

/** The database, counting the statements that mark first sends. */
function counting(database: Database): Database {
  return {
    ...database,
    dialect: database.dialect,
    query: async (sql, params) => {
      if (sql.includes('firstSentAt = COALESCE(firstSentAt')) marks += 1;
      return database.query(sql, params);
    },
  };
}

async function heldRows(count: number): Promise<{ announcementId: string; keys: DeliveryKey[] }> {
  const author = await addAdult(db, { role: 'author' });
  const announcement = await addPublishedAnnouncement(db, author.id, { channels: ['sms'] });
  const keys: DeliveryKey[] = [];
  for (let n = 0; n < count; n += 1) keys.push({ announcementId: announcement.id, userId: (await addAdult(db)).id, channel: 'sms' });
  await claimDeliveries(db, keys, T0, new Date(Date.parse(T0) + 60_000).toISOString());
  return { announcementId: announcement.id, keys };
}

describe('SendStarts', () => {
  it('marks first sends a chunk of rows at a time, in send order: one statement for many sends', async () => {
    const { announcementId, keys } = await heldRows(SEND_MARK_ROWS + 8);
    const clock = manualClock(T0);
    const starts = new SendStarts(counting(db), clock, announcementId, keys);
    const all = await Promise.all(keys.map((key) => starts.start(key)));
    expect(marks).toBe(2);
    all.forEach((start, index) => {
      const key = keys[index] as DeliveryKey;
      expect(start).toEqual({ kind: 'first', repeatability: { requestId: repeatabilityRequestId(key), firstSent: new Date(T0) } });
    });
  });

  it('gives a restarted batch the first sends recorded before: a resend inside the window, expired past it', async () => {
    const { announcementId, keys } = await heldRows(2);
    await new SendStarts(db, manualClock(T0), announcementId, keys).start(keys[0] as DeliveryKey);
    const soon = manualClock(new Date(Date.parse(T0) + RESEND_WITHIN_MS));
    const again = new SendStarts(db, soon, announcementId, keys);
    expect(await again.start(keys[0] as DeliveryKey)).toMatchObject({ kind: 'resend', repeatability: { firstSent: new Date(T0) } });
    // Marked with the first chunk, at T0: too old to resend later.
    const late = new SendStarts(db, manualClock(new Date(Date.parse(T0) + RESEND_WITHIN_MS + 1)), announcementId, keys);
    expect(await late.start(keys[1] as DeliveryKey)).toMatchObject({ kind: 'expired', repeatability: { firstSent: new Date(T0) } });
  });

  it('marks a row again, alone, when this batch marked it but could not send it for a while (a slow provider)', async () => {
    const { announcementId, keys } = await heldRows(2);
    const clock = manualClock(T0);
    const starts = new SendStarts(db, clock, announcementId, keys);
    expect(await starts.start(keys[0] as DeliveryKey)).toMatchObject({ kind: 'first', repeatability: { firstSent: new Date(T0) } });
    clock.advance(MARK_FRESH_MS + 1);
    const later = clock.now();
    expect(await starts.start(keys[1] as DeliveryKey)).toMatchObject({ kind: 'first', repeatability: { firstSent: later } });
    const rows = await db.query<{ userId: string; firstSentAt: string }>('SELECT userId, firstSentAt FROM NotificationDeliveries ORDER BY userId');
    expect(rows).toEqual([
      { userId: keys[0]?.userId, firstSentAt: T0 },
      { userId: keys[1]?.userId, firstSentAt: later.toISOString() },
    ]);
  });

  it('sends nothing for a row settled meanwhile', async () => {
    const { announcementId, keys } = await heldRows(1);
    const key = keys[0] as DeliveryKey;
    await db.execute("UPDATE NotificationDeliveries SET result = 'delivered' WHERE userId = @userId", { userId: key.userId });
    expect(await new SendStarts(db, manualClock(T0), announcementId, keys).start(key)).toBeUndefined();
  });
});
