import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../db/database';
import { migrateDatabase } from '../db/migrate';
import { openDatabase } from '../db/open-database';
import { insertAnnouncement } from '../announcements/announcement-store';
import { insertUser } from '../users/user-store';
import { claimDelivery, deliveriesOf, releaseDelivery, type DeliveryKey } from './delivery-ledger';
import { PROCESSING_VISIBILITY_SECONDS } from '../../devhost/queue-listener';
import { DELIVERY_LEASE_MS, LEASE_RENEWAL_MS, startLeaseHeartbeat } from './lease-heartbeat';

const ANNOUNCEMENT = '00000000-0000-4000-8000-0000000000a1';
const USER = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const T0 = new Date('2031-05-10T08:00:00.000Z');

let db: Database | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

async function ledger(): Promise<Database> {
  db = openDatabase({ kind: 'sqlite', path: ':memory:' });
  await migrateDatabase(db);
  const at = T0.toISOString();
  for (const id of [USER, OTHER]) {
    await insertUser(db, {
      id, accountType: 'adult', issuer: 'https://idp.example', subject: id, parentId: null, role: 'member', status: 'active',
      email: null, phone: null, createdAt: at, updatedAt: at,
    });
  }
  await insertAnnouncement(db, {
    id: ANNOUNCEMENT, authorId: USER, title: 't', body: 'b', channels: ['push'], status: 'published', rejectionReason: null,
    createdAt: at, updatedAt: at, submittedAt: at, reviewedAt: at, reviewedBy: USER, publishedAt: at, publishedBy: USER, fanoutEnqueuedAt: at,
  });
  return db;
}

/** The Storage Queues extension's invisibility of a message whose function runs (`QueueListener`: 10 minutes, renewed). */
const FUNCTIONS_HOST_MESSAGE_INVISIBILITY_MS = 10 * 60 * 1000;

describe('the ledger lease', () => {
  it('is never longer than the invisibility of the queue message its batch came in, on either host, and is renewed well within itself', () => {
    expect(DELIVERY_LEASE_MS).toBeLessThanOrEqual(PROCESSING_VISIBILITY_SECONDS * 1000);
    expect(DELIVERY_LEASE_MS).toBeLessThanOrEqual(FUNCTIONS_HOST_MESSAGE_INVISIBILITY_MS);
    expect(LEASE_RENEWAL_MS * 2).toBeLessThanOrEqual(DELIVERY_LEASE_MS);
  });
});

describe('startLeaseHeartbeat', () => {
  it('keeps extending the leases of the rows still held, and stops when told', async () => {
    const database = await ledger();
    let now = T0;
    const clock = { now: () => now };
    const held: DeliveryKey[] = [USER, OTHER].map((userId) => ({ announcementId: ANNOUNCEMENT, userId, channel: 'push' }));
    const firstLease = new Date(T0.getTime() + DELIVERY_LEASE_MS).toISOString();
    for (const key of held) expect(await claimDelivery(database, key, T0.toISOString(), firstLease)).toBe('claimed');
    // OTHER's row is given back (it failed transiently): it is no longer held and never renewed.
    await releaseDelivery(database, held[1] as DeliveryKey, T0.toISOString());
    const errors: unknown[] = [];
    const heartbeat = startLeaseHeartbeat(
      database,
      clock,
      { announcementId: ANNOUNCEMENT, keys: () => [held[0] as DeliveryKey], heldUntil: firstLease },
      (error) => errors.push(error),
      5,
    );
    now = new Date(T0.getTime() + 40_000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await heartbeat.stop();
    const renewed = new Date(now.getTime() + DELIVERY_LEASE_MS).toISOString();
    const rows = await deliveriesOf(database, ANNOUNCEMENT);
    expect(rows.map((row) => [row.userId, row.result, row.claimedUntil])).toEqual([
      [USER, 'pending', renewed],
      [OTHER, 'pending', T0.toISOString()],
    ]);
    expect(errors).toEqual([]);
    // Stopped: a later clock changes nothing.
    now = new Date(T0.getTime() + 120_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await deliveriesOf(database, ANNOUNCEMENT))[0]?.claimedUntil).toBe(renewed);
  });
});
