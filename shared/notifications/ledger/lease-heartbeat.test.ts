import { afterEach, describe, expect, it } from 'vitest';
import { PROCESSING_VISIBILITY_SECONDS } from '../../../devhost/queue-listener';
import { nextOccurrence, parseSchedule } from '../../../devhost/schedule';
import { loadConfig } from '../../config';
import { addAdult, addPublishedAnnouncement, migratedMemoryDatabase, T0 as START } from '../../../test/notifications/notification-fixtures';
import type { Database } from '../../db/database';
import { claimDelivery, deliveriesOf, releaseDelivery, type DeliveryKey } from './delivery-ledger';
import { DELIVERY_LEASE_MS, LEASE_RENEWAL_MS, startLeaseHeartbeat } from './lease-heartbeat';

const T0 = new Date(START);

let db: Database | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

/** The Storage Queues extension's invisibility of a message whose function runs (`QueueListener`: 10 minutes, renewed). */
const FUNCTIONS_HOST_MESSAGE_INVISIBILITY_MS = 10 * 60 * 1000;

describe('the ledger lease', () => {
  it('is never longer than the invisibility of the queue message its batch came in, on either host, and is renewed well within itself', () => {
    expect(DELIVERY_LEASE_MS).toBeLessThanOrEqual(PROCESSING_VISIBILITY_SECONDS * 1000);
    expect(DELIVERY_LEASE_MS).toBeLessThanOrEqual(FUNCTIONS_HOST_MESSAGE_INVISIBILITY_MS);
    expect(LEASE_RENEWAL_MS * 2).toBeLessThanOrEqual(DELIVERY_LEASE_MS);
  });

  it('is what a crashed batch waits for, not the queue: the local host keeps a running message invisible as long as the Functions host does', () => {
    // Every run has production's semantics, so a test cannot pass on a short queue lease.
    expect(PROCESSING_VISIBILITY_SECONDS * 1000).toBe(FUNCTIONS_HOST_MESSAGE_INVISIBILITY_MS);
    // One lease, then at most one period of the recovery timer: resumed within 2 minutes of a crash.
    const schedule = parseSchedule(loadConfig({}).schedules.fanoutRecovery);
    // The longest wait for the next run, over a minute of starting points.
    let recoveryPeriodMs = 0;
    for (let second = 0; second < 60; second += 1) {
      const at = new Date(Date.UTC(2031, 0, 1, 0, 0, second, 1));
      recoveryPeriodMs = Math.max(recoveryPeriodMs, nextOccurrence(schedule, at).getTime() - at.getTime());
    }
    expect(DELIVERY_LEASE_MS + recoveryPeriodMs).toBeLessThanOrEqual(90_000);
  });
});

describe('startLeaseHeartbeat', () => {
  it('keeps extending the leases of the rows still held, and stops when told', async () => {
    const database = (db = await migratedMemoryDatabase());
    const [user, other] = [await addAdult(database), await addAdult(database)];
    const { id: ANNOUNCEMENT } = await addPublishedAnnouncement(database, user.id, { channels: ['push'] });
    let now = T0;
    const clock = { now: () => now };
    const held: DeliveryKey[] = [user.id, other.id].map((userId) => ({ announcementId: ANNOUNCEMENT, userId, channel: 'push' }));
    const firstLease = new Date(T0.getTime() + DELIVERY_LEASE_MS).toISOString();
    for (const key of held) expect(await claimDelivery(database, key, T0.toISOString(), firstLease)).toBe('claimed');
    // The other user's row is given back (it failed transiently): it is no longer held and never renewed.
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
      [user.id, 'pending', renewed],
      [other.id, 'pending', T0.toISOString()],
    ]);
    expect(errors).toEqual([]);
    // Stopped: a later clock changes nothing.
    now = new Date(T0.getTime() + 120_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await deliveriesOf(database, ANNOUNCEMENT))[0]?.claimedUntil).toBe(renewed);
  });
});
