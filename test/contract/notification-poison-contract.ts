import { describe, expect, it } from 'vitest';
import { insertAnnouncement } from '../../shared/announcements/announcement-store';
import type { Database } from '../../shared/db/database';
import { claimDelivery, deliveriesOf, finishDelivery, releaseDelivery, type DeliveryKey } from '../../shared/notifications/ledger/delivery-ledger';
import {
  countUndelivered,
  deliveryStatesInRange,
  markPoisonedDeliveries,
  POISONED_PROVIDER_CODE,
  resetPoisonedDeliveries,
  type LedgerRange,
} from '../../shared/notifications/ledger/poisoned-deliveries';
import { insertUser } from '../../shared/users/user-store';
import { adultUser, isoAfter, migratedDatabasePerSuite, numberedId } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

const NOW = '2031-05-10T08:00:00.000Z';
const LEASE = '2031-05-10T08:05:00.000Z';
const AFTER_LEASE = isoAfter(LEASE, 1);
const ANNOUNCEMENT = numberedId(1, 'a');
const OTHER_ANNOUNCEMENT = numberedId(2, 'a');
const user = (n: number): string => numberedId(n);

async function seed(db: Database): Promise<void> {
  for (let n = 1; n <= 5; n += 1) await insertUser(db, adultUser(n));
  for (const id of [ANNOUNCEMENT, OTHER_ANNOUNCEMENT]) {
    await insertAnnouncement(db, {
      id,
      authorId: user(1),
      title: 'Hall closed',
      body: 'On Friday.',
      channels: ['push', 'sms', 'email'],
      status: 'published',
      rejectionReason: null,
      createdAt: NOW,
      updatedAt: NOW,
      submittedAt: NOW,
      reviewedAt: NOW,
      reviewedBy: user(1),
      publishedAt: NOW,
      publishedBy: user(1),
      fanoutEnqueuedAt: NOW,
    });
  }
}

const key = (n: number, channel: DeliveryKey['channel'], announcementId = ANNOUNCEMENT): DeliveryKey => ({
  announcementId,
  userId: user(n),
  channel,
});

/**
 * Rows of a batch message (users 2 to 4) after its tries: user 2's SMS given back after a
 * transient error, user 2's e-mail accepted, user 3's push failed by the provider, user 3's SMS
 * still under a live lease (a copy of the batch sending it), user 4's e-mail never finished and its
 * lease ran out; and rows outside the range: user 1 (before it), user 5 (after it), and user 3 of
 * another announcement.
 */
async function afterFailedTries(db: Database): Promise<void> {
  await seed(db);
  for (const k of [key(1, 'sms'), key(2, 'sms'), key(2, 'email'), key(3, 'push'), key(4, 'email'), key(5, 'sms'), key(3, 'sms', OTHER_ANNOUNCEMENT)]) {
    expect(await claimDelivery(db, k, NOW, LEASE)).toBe('claimed');
  }
  await releaseDelivery(db, key(1, 'sms'), NOW, 'http_503');
  await releaseDelivery(db, key(2, 'sms'), NOW, 'http_503');
  await finishDelivery(db, key(2, 'email'), { result: 'accepted', providerMessageId: 'op-2' }, NOW);
  await finishDelivery(db, key(3, 'push'), { result: 'provider_error', providerCode: 'MessageTooBig' }, NOW);
  await releaseDelivery(db, key(5, 'sms'), NOW);
  await releaseDelivery(db, key(3, 'sms', OTHER_ANNOUNCEMENT), NOW);
  // Claimed later by another invocation, which holds it past AFTER_LEASE.
  expect(await claimDelivery(db, key(3, 'sms'), NOW, isoAfter(LEASE, 60_000))).toBe('claimed');
}

const BATCH: LedgerRange = { announcementId: ANNOUNCEMENT, afterUserId: user(1), throughUserId: user(4) };

async function resultsOf(db: Database, announcementId = ANNOUNCEMENT): Promise<Record<string, string>> {
  const rows = await deliveriesOf(db, announcementId);
  return Object.fromEntries(rows.map((row) => [`${Number.parseInt(row.userId.slice(-4), 16)}/${row.channel}`, `${row.result}${row.providerCode ? `:${row.providerCode}` : ''}`]));
}

/**
 * Registers the contract suite of the poisoned-message ledger statements
 * (`shared/notifications/ledger/poisoned-deliveries.ts`) for one engine.
 */
export function describeNotificationPoisonContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Poisoned fan-out deliveries contract: ${name}`, () => {
    const database = migratedDatabasePerSuite(factory);

    it('marks failed/poisoned only the unfinished rows of the range whose lease is over', async () => {
      const db = database();
      await afterFailedTries(db);
      expect(await markPoisonedDeliveries(db, BATCH, AFTER_LEASE)).toBe(2);
      expect(await resultsOf(db)).toEqual({
        '1/sms': 'pending:http_503',
        '2/email': 'accepted',
        '2/sms': `failed:${POISONED_PROVIDER_CODE}`,
        '3/push': 'provider_error:MessageTooBig',
        '3/sms': 'pending',
        '4/email': `failed:${POISONED_PROVIDER_CODE}`,
        '5/sms': 'pending',
      });
      expect(await resultsOf(db, OTHER_ANNOUNCEMENT)).toEqual({ '3/sms': 'pending' });
      const marked = (await deliveriesOf(db, ANNOUNCEMENT)).find((row) => row.userId === user(4));
      expect(marked).toMatchObject({ claimedUntil: null, updatedAt: AFTER_LEASE, attempts: 1 });
      // A poisoned row is final to a later claim: nothing sends it until a re-drive resets it.
      expect(await claimDelivery(db, key(2, 'sms'), isoAfter(AFTER_LEASE, 1), isoAfter(AFTER_LEASE, 2))).toBe('done');
      expect(await markPoisonedDeliveries(db, BATCH, AFTER_LEASE)).toBe(0);
    });

    it('marks a whole announcement when the range has no end, and nothing of an empty range', async () => {
      const db = database();
      await afterFailedTries(db);
      expect(await markPoisonedDeliveries(db, { announcementId: ANNOUNCEMENT, afterUserId: user(4), throughUserId: user(4) }, AFTER_LEASE)).toBe(0);
      expect(await markPoisonedDeliveries(db, { announcementId: ANNOUNCEMENT, afterUserId: '' }, AFTER_LEASE)).toBe(4);
      expect(Object.entries(await resultsOf(db)).filter(([, result]) => result === 'pending')).toEqual([['3/sms', 'pending']]);
    });

    it('counts what is not delivered yet, and reads the states of the range without contact data', async () => {
      const db = database();
      await afterFailedTries(db);
      expect(await countUndelivered(db, BATCH)).toEqual({ pending: 3, poisoned: 0 });
      await markPoisonedDeliveries(db, BATCH, AFTER_LEASE);
      expect(await countUndelivered(db, BATCH)).toEqual({ pending: 1, poisoned: 2 });
      expect(await countUndelivered(db, { announcementId: ANNOUNCEMENT, afterUserId: '' })).toEqual({ pending: 3, poisoned: 2 });
      expect(await countUndelivered(db, { announcementId: numberedId(9, 'a'), afterUserId: '' })).toEqual({ pending: 0, poisoned: 0 });
      const states = await deliveryStatesInRange(db, BATCH);
      expect(states.map((state) => Object.keys(state).sort())).toEqual(states.map(() => ['channel', 'providerCode', 'result', 'userId']));
      expect(states.map((state) => `${state.userId}/${state.channel}/${state.result}`).sort()).toEqual(
        [`${user(2)}/email/accepted`, `${user(2)}/sms/failed`, `${user(3)}/push/provider_error`, `${user(3)}/sms/pending`, `${user(4)}/email/failed`].sort(),
      );
    });

    it('resets only rows failed by poisoning, once, and a claim then sends them', async () => {
      const db = database();
      await afterFailedTries(db);
      await markPoisonedDeliveries(db, BATCH, AFTER_LEASE);
      // A provider's own failure is final, even with the same result.
      await finishDelivery(db, key(1, 'sms'), { result: 'failed', providerCode: 'Failed' }, AFTER_LEASE);
      const resetAt = isoAfter(AFTER_LEASE, 1000);
      expect(await resetPoisonedDeliveries(db, { announcementId: ANNOUNCEMENT, afterUserId: user(2), throughUserId: user(4) }, resetAt)).toBe(1);
      expect(await resetPoisonedDeliveries(db, BATCH, resetAt)).toBe(1);
      expect(await resetPoisonedDeliveries(db, BATCH, resetAt)).toBe(0);
      expect(await resultsOf(db)).toEqual({
        '1/sms': 'failed:Failed',
        '2/email': 'accepted',
        '2/sms': 'pending',
        '3/push': 'provider_error:MessageTooBig',
        '3/sms': 'pending',
        '4/email': 'pending',
        '5/sms': 'pending',
      });
      const reset = (await deliveriesOf(db, ANNOUNCEMENT)).find((row) => row.userId === user(4));
      expect(reset).toMatchObject({ claimedUntil: null, updatedAt: resetAt, providerCode: null });
      expect(await claimDelivery(db, key(4, 'email'), resetAt, isoAfter(resetAt, 60_000))).toBe('claimed');
      expect(await claimDelivery(db, key(2, 'email'), resetAt, isoAfter(resetAt, 60_000))).toBe('done');
    });
  });
}
