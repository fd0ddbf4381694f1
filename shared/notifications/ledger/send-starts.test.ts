import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addAdult, addPublishedAnnouncement, migratedMemoryDatabase, T0 } from '../../../test/notifications/notification-fixtures';
import type { Database } from '../../db/database';
import { manualClock } from '../../ports/clock';
import { claimDeliveries, type DeliveryKey } from './delivery-ledger';
import { RESEND_WITHIN_MS, repeatabilityRequestId } from './send-repeatability';
import { SendStarts } from './send-starts';

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
  it('marks the sends that start together in one statement, and never a row whose send has not started', async () => {
    const { announcementId, keys } = await heldRows(24);
    const clock = manualClock(T0);
    const starts = new SendStarts(counting(db), clock, announcementId);
    // A batch filling its 16 slots: one statement for them.
    const firstSlots = keys.slice(0, 16);
    const all = await Promise.all(firstSlots.map((key) => starts.start(key)));
    expect(marks).toBe(1);
    all.forEach((start, index) => {
      const key = firstSlots[index] as DeliveryKey;
      expect(start).toEqual({ kind: 'first', repeatability: { requestId: repeatabilityRequestId(key), firstSent: new Date(T0) } });
    });
    // The other rows are not marked until their own sends start (a crash now leaves them unsent and unmarked).
    expect(await firstSentOf(keys.slice(16))).toEqual(Array(8).fill(null));
    clock.advance(250);
    const later = clock.now();
    expect(await starts.start(keys[16] as DeliveryKey)).toMatchObject({ kind: 'first', repeatability: { firstSent: later } });
    expect(marks).toBe(2);
    expect(await firstSentOf(keys.slice(16))).toEqual([later.toISOString(), ...Array(7).fill(null)]);
  });

  it('joins the starts that arrive while a mark is being written into the next statement', async () => {
    const { announcementId, keys } = await heldRows(6);
    const starts = new SendStarts(counting(db), manualClock(T0), announcementId);
    const first = starts.start(keys[0] as DeliveryKey);
    // Arriving one after another while the first statement runs: they wait for it and go together.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const rest = keys.slice(1).map((key) => starts.start(key));
    await Promise.all([first, ...rest]);
    expect(marks).toBe(2);
  });

  it('gives a restarted batch the first sends recorded before: a resend inside the window, expired past it', async () => {
    const { announcementId, keys } = await heldRows(2);
    await new SendStarts(db, manualClock(T0), announcementId).start(keys[0] as DeliveryKey);
    const soon = manualClock(new Date(Date.parse(T0) + RESEND_WITHIN_MS));
    expect(await new SendStarts(db, soon, announcementId).start(keys[0] as DeliveryKey)).toMatchObject({ kind: 'resend', repeatability: { firstSent: new Date(T0) } });
    const late = manualClock(new Date(Date.parse(T0) + RESEND_WITHIN_MS + 1));
    expect(await new SendStarts(db, late, announcementId).start(keys[0] as DeliveryKey)).toMatchObject({ kind: 'expired', repeatability: { firstSent: new Date(T0) } });
    // The row whose send never started was never marked: past the window it is a first send.
    expect(await new SendStarts(db, late, announcementId).start(keys[1] as DeliveryKey)).toMatchObject({ kind: 'first', repeatability: { firstSent: late.now() } });
  });

  it('forgets a first send that did not go out, so that it is a first send again later, whenever that is', async () => {
    const { announcementId, keys } = await heldRows(1);
    const key = keys[0] as DeliveryKey;
    const starts = new SendStarts(db, manualClock(T0), announcementId);
    await starts.start(key);
    await starts.notSent(key);
    expect(await firstSentOf([key])).toEqual([null]);
    const late = manualClock(new Date(Date.parse(T0) + 10 * 60_000));
    expect(await new SendStarts(db, late, announcementId).start(key)).toMatchObject({ kind: 'first' });
  });

  it('sends nothing for a row settled meanwhile', async () => {
    const { announcementId, keys } = await heldRows(1);
    const key = keys[0] as DeliveryKey;
    await db.execute("UPDATE NotificationDeliveries SET result = 'delivered' WHERE userId = @userId", { userId: key.userId });
    expect(await new SendStarts(db, manualClock(T0), announcementId).start(key)).toBeUndefined();
  });
});

async function firstSentOf(keys: readonly DeliveryKey[]): Promise<(string | null)[]> {
  const result: (string | null)[] = [];
  for (const key of keys) {
    const [row] = await db.query<{ firstSentAt: string | null }>('SELECT firstSentAt FROM NotificationDeliveries WHERE userId = @userId AND channel = @channel', {
      userId: key.userId,
      channel: key.channel,
    });
    result.push(row?.firstSentAt ?? null);
  }
  return result;
}
