import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addAdult, addPublishedAnnouncement, migratedMemoryDatabase } from '../../../test/notifications/notification-fixtures';
import type { Database, SqlExecutor, SqlParams } from '../../db/database';
import { claimDelivery, deliveriesOf, finishDeliveries, finishDelivery, releaseDelivery, type DeliveryKey } from './delivery-ledger';
import { deletePushTicket, recordPushTickets } from './push-tickets';

const NOW = '2031-05-10T08:00:00.000Z';
const LATER = '2031-05-10T08:01:00.000Z';
const LEASE = '2031-05-10T08:05:00.000Z';
const AFTER_LEASE = '2031-05-10T08:05:00.001Z';

let db: Database;
let key: DeliveryKey;

beforeEach(async () => {
  db = await migratedMemoryDatabase();
  const user = await addAdult(db);
  const announcement = await addPublishedAnnouncement(db, user.id);
  key = { announcementId: announcement.id, userId: user.id, channel: 'sms' };
});

afterEach(async () => {
  await db.close();
});

describe('the delivery ledger', () => {
  it('claims a new row as pending with a lease and one attempt', async () => {
    expect(await claimDelivery(db, key, NOW, LEASE)).toBe('claimed');
    expect(await deliveriesOf(db, key.announcementId)).toEqual([
      expect.objectContaining({ ...key, result: 'pending', attempts: 1, claimedUntil: LEASE, createdAt: NOW }),
    ]);
  });

  it('leaves a row under a live lease to its holder', async () => {
    await claimDelivery(db, key, NOW, LEASE);
    expect(await claimDelivery(db, key, LATER, LEASE)).toBe('busy');
    expect((await deliveriesOf(db, key.announcementId))[0]?.attempts).toBe(1);
  });

  it('never claims a row with a final result again', async () => {
    await claimDelivery(db, key, NOW, LEASE);
    await finishDelivery(db, key, { result: 'success', providerMessageId: 'msg-1' }, LATER);
    expect(await claimDelivery(db, key, AFTER_LEASE, '2031-05-10T09:00:00.000Z')).toBe('done');
    expect(await deliveriesOf(db, key.announcementId)).toEqual([
      expect.objectContaining({ result: 'success', attempts: 1, providerMessageId: 'msg-1', claimedUntil: null, updatedAt: LATER }),
    ]);
  });

  it('claims a released row again at once, counting the attempt and keeping the last provider code', async () => {
    await claimDelivery(db, key, NOW, LEASE);
    await releaseDelivery(db, key, LATER, 'http_503');
    expect(await claimDelivery(db, key, LATER, LEASE)).toBe('claimed');
    expect(await deliveriesOf(db, key.announcementId)).toEqual([
      expect.objectContaining({ result: 'pending', attempts: 2, providerCode: 'http_503', claimedUntil: LEASE }),
    ]);
  });

  it('claims a row whose lease ran out (its holder crashed)', async () => {
    await claimDelivery(db, key, NOW, LEASE);
    expect(await claimDelivery(db, key, AFTER_LEASE, '2031-05-10T09:00:00.000Z')).toBe('claimed');
  });

  it('gives exactly one of two racing reclaims the row', async () => {
    await claimDelivery(db, key, NOW, LEASE);
    await releaseDelivery(db, key, LATER);
    const claims = await Promise.all([claimDelivery(db, key, LATER, LEASE), claimDelivery(db, key, LATER, LEASE)]);
    expect([...claims].sort()).toEqual(['busy', 'claimed']);
  });

  it('keeps one row per announcement, user and channel', async () => {
    for (const channel of ['push', 'sms', 'email'] as const) expect(await claimDelivery(db, { ...key, channel }, NOW, LEASE)).toBe('claimed');
    await expect(
      db.execute(
        `INSERT INTO NotificationDeliveries (announcementId, userId, channel, result, attempts, createdAt, updatedAt)
         VALUES (@announcementId, @userId, 'sms', 'success', 1, @now, @now)`,
        { announcementId: key.announcementId, userId: key.userId, now: NOW },
      ),
    ).rejects.toThrow(/UNIQUE|PRIMARY/i);
    expect(await deliveriesOf(db, key.announcementId)).toHaveLength(3);
  });

  it('does not release a row that already has its result', async () => {
    await claimDelivery(db, key, NOW, LEASE);
    await finishDelivery(db, key, { result: 'opted_out', providerCode: 'user_choice' }, LATER);
    await releaseDelivery(db, key, AFTER_LEASE, 'http_500');
    expect(await deliveriesOf(db, key.announcementId)).toEqual([expect.objectContaining({ result: 'opted_out', providerCode: 'user_choice' })]);
  });
});

describe('the push answer statements on SQLite', () => {
  /** The plan SQLite makes of each statement `write` sends, by `EXPLAIN QUERY PLAN` (without statistics, as a fresh database). */
  async function plansOf(write: (tx: SqlExecutor) => Promise<unknown>): Promise<string[][]> {
    const statements: { sql: string; params: SqlParams | undefined }[] = [];
    const recorder: SqlExecutor = {
      execute: async (sql, params) => (statements.push({ sql, params }), 0),
      query: async <T extends object>(sql: string, params?: SqlParams) => (statements.push({ sql, params }), [] as T[]),
    };
    await write(recorder);
    return Promise.all(statements.map(async ({ sql, params }) => (await db.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params)).map((row) => row.detail)));
  }

  it('finds each answered row by its key, never by walking the announcement\'s pending rows', async () => {
    const [plan] = await plansOf((tx) => finishDeliveries(tx, 'sqlite', key.announcementId, 'push', [{ userId: key.userId, result: 'success' }], NOW));
    expect(plan).toContain('SEARCH d USING INDEX sqlite_autoindex_NotificationDeliveries_1 (announcementId=? AND userId=? AND channel=?)');
    expect(plan?.some((step) => step.includes('IX_NotificationDeliveries_announcementId_result'))).toBe(false);
  });

  it('checks each ticket by its primary key, which leads with the time its request was sent', async () => {
    const ticket = { ticketId: 't', token: 'x', userId: key.userId, announcementId: key.announcementId, sentAt: NOW };
    const [insertPlan] = await plansOf((tx) => recordPushTickets(tx, 'sqlite', [ticket]));
    expect(insertPlan).toContain('SEARCH p USING COVERING INDEX sqlite_autoindex_PushTickets_1 (sentAt=? AND ticketId=?)');
    const [deletePlan] = await plansOf((tx) => deletePushTicket(tx, ticket));
    expect(deletePlan).toEqual(['SEARCH PushTickets USING INDEX sqlite_autoindex_PushTickets_1 (sentAt=? AND ticketId=?)']);
  });
});
