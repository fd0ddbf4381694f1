import { describe, expect, it } from 'vitest';
import { insertAnnouncement } from '../../shared/announcements/announcement-store';
import type { Database } from '../../shared/db/database';
import {
  claimDeliveries,
  claimDelivery,
  deliveriesOf,
  finishDeliveries,
  finishDelivery,
  releaseDelivery,
  renewDeliveryLeases,
  type DeliveryKey,
  type DeliveryRow,
} from '../../shared/notifications/ledger/delivery-ledger';
import { deletePushTicket, recordPushTickets, ticketsSentBefore, type PushTicket } from '../../shared/notifications/ledger/push-tickets';
import { clearSendStart, markSendStarts, restartSendStart } from '../../shared/notifications/ledger/send-repeatability';
import { markStalledHandedOver, stalledDeliveries, userIdBefore } from '../../shared/notifications/ledger/stalled-deliveries';
import { refundSms, reserveSms, reserveSmsGroup, spentUsd, type SmsReservation } from '../../shared/notifications/channels/sms-spend-guard';
import type { SmsSpendSettings } from '../../shared/notifications/engine/fanout-deps';
import { insertUser } from '../../shared/users/user-store';
import { adultUser, isoAfter, migratedDatabasePerSuite, numberedId } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

const NOW = '2031-05-10T08:00:00.000Z';
const LEASE = '2031-05-10T08:05:00.000Z';
const ANNOUNCEMENT = numberedId(1, 'a');
const USER = numberedId(1);
const OTHER_USER = numberedId(2);
/** A cap of ten SMS: 80 % is reached by the 8th. */
const TEN_SMS: SmsSpendSettings = { monthlyCapUsd: 0.3, unitCostUsd: 0.03 };

async function seed(db: Database): Promise<void> {
  await insertUser(db, adultUser(1));
  await insertUser(db, adultUser(2));
  await insertAnnouncement(db, {
    id: ANNOUNCEMENT,
    authorId: USER,
    title: 'Bake sale moved',
    body: 'To the gym.',
    channels: ['push', 'sms', 'email'],
    status: 'published',
    rejectionReason: null,
    createdAt: NOW,
    updatedAt: NOW,
    submittedAt: NOW,
    reviewedAt: NOW,
    reviewedBy: USER,
    publishedAt: NOW,
    publishedBy: USER,
    fanoutEnqueuedAt: NOW,
  });
}

function pendingRow(key: DeliveryKey, overrides: Partial<DeliveryRow> = {}): DeliveryRow {
  return {
    ...key,
    result: 'pending',
    attempts: 1,
    providerCode: null,
    providerMessageId: null,
    claimedUntil: LEASE,
    createdAt: NOW,
    updatedAt: NOW,
    ...overrides,
  };
}

/**
 * Registers the contract suite of the fan-out's bookkeeping stores (`shared/notifications`: the
 * delivery ledger, the SMS spend guard and the push tickets) for one engine.
 * @param name the engine, shown in the suite's title.
 * @param factory the suite's database.
 */
export function describeNotificationDeliveryContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Notification delivery stores contract: ${name}`, () => {
    const database = migratedDatabasePerSuite(factory);
    const key: DeliveryKey = { announcementId: ANNOUNCEMENT, userId: USER, channel: 'sms' };

    describe('delivery ledger', () => {
      it('claims a new row as pending under a lease, and reads it back exactly', async () => {
        const db = database();
        await seed(db);
        expect(await claimDelivery(db, key, NOW, LEASE)).toBe('claimed');
        expect(await deliveriesOf(db, ANNOUNCEMENT)).toEqual([pendingRow(key)]);
        expect(await deliveriesOf(db, numberedId(2, 'a'))).toEqual([]);
      });

      it('leaves a row under a live lease to its holder, and reclaims it from the instant the lease ends', async () => {
        const db = database();
        await seed(db);
        await claimDelivery(db, key, NOW, LEASE);
        expect(await claimDelivery(db, key, isoAfter(LEASE, -1), isoAfter(LEASE, 60_000))).toBe('busy');
        const nextLease = isoAfter(LEASE, 300_000);
        expect(await claimDelivery(db, key, LEASE, nextLease)).toBe('claimed');
        expect(await deliveriesOf(db, ANNOUNCEMENT)).toEqual([pendingRow(key, { attempts: 2, claimedUntil: nextLease, updatedAt: LEASE })]);
      });

      it('never claims a finished row again, and keeps what the provider said (cut to the column sizes)', async () => {
        const db = database();
        await seed(db);
        await claimDelivery(db, key, NOW, LEASE);
        const finished = isoAfter(NOW, 1500);
        const providerCode = 'c'.repeat(70);
        const providerMessageId = `Msg-${'Ab9'.repeat(50)}`;
        await finishDelivery(db, key, { result: 'provider_error', providerCode, providerMessageId }, finished);
        expect(await claimDelivery(db, key, isoAfter(LEASE, 1), isoAfter(LEASE, 2))).toBe('done');
        await releaseDelivery(db, key, isoAfter(LEASE, 3), 'http_500');
        expect(await deliveriesOf(db, ANNOUNCEMENT)).toEqual([
          pendingRow(key, {
            result: 'provider_error',
            providerCode: providerCode.slice(0, 64),
            providerMessageId: providerMessageId.slice(0, 128),
            claimedUntil: null,
            updatedAt: finished,
          }),
        ]);
      });

      it('finishes many rows of one announcement and channel in one statement, only those still pending', async () => {
        const db = database();
        await seed(db);
        const first: DeliveryKey = { announcementId: ANNOUNCEMENT, userId: USER, channel: 'push' };
        const second: DeliveryKey = { announcementId: ANNOUNCEMENT, userId: OTHER_USER, channel: 'push' };
        const sms: DeliveryKey = { announcementId: ANNOUNCEMENT, userId: USER, channel: 'sms' };
        for (const key of [first, second, sms]) expect(await claimDelivery(db, key, NOW, LEASE)).toBe('claimed');
        const earlier = isoAfter(NOW, 10);
        await finishDelivery(db, second, { result: 'stale_token', providerCode: 'DeviceNotRegistered' }, earlier);
        const finished = isoAfter(NOW, 20);
        const ticket = `ticket-${'x'.repeat(140)}`;
        const changed = await finishDeliveries(
          db,
          db.dialect,
          ANNOUNCEMENT,
          'push',
          [
            { userId: USER, result: 'success', providerMessageId: ticket },
            // Already final: a second answer never overwrites it.
            { userId: OTHER_USER, result: 'success', providerMessageId: 'late' },
          ],
          finished,
        );
        expect(changed).toBe(1);
        expect(await finishDeliveries(db, db.dialect, ANNOUNCEMENT, 'push', [], finished)).toBe(0);
        expect(await deliveriesOf(db, ANNOUNCEMENT)).toEqual([
          pendingRow(first, { result: 'success', providerMessageId: ticket.slice(0, 128), claimedUntil: null, updatedAt: finished }),
          pendingRow(sms),
          pendingRow(second, { result: 'stale_token', providerCode: 'DeviceNotRegistered', claimedUntil: null, updatedAt: earlier }),
        ]);
      });

      it('renews in one statement the leases an invocation still holds (its users\' rows under its lease), and no other row', async () => {
        const db = database();
        await seed(db);
        const push: DeliveryKey = { announcementId: ANNOUNCEMENT, userId: USER, channel: 'push' };
        const email: DeliveryKey = { announcementId: ANNOUNCEMENT, userId: USER, channel: 'email' };
        const released: DeliveryKey = { announcementId: ANNOUNCEMENT, userId: OTHER_USER, channel: 'push' };
        const finished: DeliveryKey = { announcementId: ANNOUNCEMENT, userId: OTHER_USER, channel: 'email' };
        for (const k of [push, email, released, finished]) expect(await claimDelivery(db, k, NOW, LEASE)).toBe('claimed');
        await releaseDelivery(db, released, isoAfter(NOW, 5));
        await finishDelivery(db, finished, { result: 'success' }, isoAfter(NOW, 6));
        const renewedAt = isoAfter(NOW, 20_000);
        const longer = isoAfter(LEASE, 20_000);
        // By user: USER's e-mail row is under the same lease, so it is this invocation's too.
        const renewed = await renewDeliveryLeases(db, db.dialect, ANNOUNCEMENT, [push, released, finished], LEASE, longer, renewedAt);
        expect(renewed).toBe(2);
        // A lease someone else set (not `heldUntil`) is theirs: nothing changes.
        expect(await renewDeliveryLeases(db, db.dialect, ANNOUNCEMENT, [email], isoAfter(LEASE, 1), isoAfter(longer, 1), renewedAt)).toBe(0);
        expect(await renewDeliveryLeases(db, db.dialect, ANNOUNCEMENT, [], LEASE, longer, renewedAt)).toBe(0);
        const rows = new Map((await deliveriesOf(db, ANNOUNCEMENT)).map((row) => [`${row.userId}/${row.channel}`, row]));
        expect(rows.get(`${USER}/push`)).toMatchObject({ result: 'pending', claimedUntil: longer, updatedAt: renewedAt });
        expect(rows.get(`${USER}/email`)).toMatchObject({ result: 'pending', claimedUntil: longer });
        expect(rows.get(`${OTHER_USER}/push`)).toMatchObject({ result: 'pending', claimedUntil: isoAfter(NOW, 5) });
        expect(rows.get(`${OTHER_USER}/email`)).toMatchObject({ result: 'success', claimedUntil: null });
      });

      it('claims a released row again at once, keeping the last provider code when the release has none', async () => {
        const db = database();
        await seed(db);
        await claimDelivery(db, key, NOW, LEASE);
        const released = isoAfter(NOW, 10);
        await releaseDelivery(db, key, released, 'http_503');
        await releaseDelivery(db, key, isoAfter(released, 1));
        expect(await deliveriesOf(db, ANNOUNCEMENT)).toEqual([
          pendingRow(key, { providerCode: 'http_503', claimedUntil: isoAfter(released, 1), updatedAt: isoAfter(released, 1) }),
        ]);
        expect(await claimDelivery(db, key, isoAfter(released, 1), LEASE)).toBe('claimed');
        expect((await deliveriesOf(db, ANNOUNCEMENT))[0]).toMatchObject({ attempts: 2, claimedUntil: LEASE, providerCode: 'http_503' });
      });

      it('keeps one row per announcement, user and channel: a key claimed twice is busy the second time', async () => {
        const db = database();
        await seed(db);
        const keys: DeliveryKey[] = [
          { ...key, channel: 'sms' },
          { ...key, channel: 'email' },
          { ...key, userId: OTHER_USER, channel: 'push' },
          { ...key, channel: 'sms' },
        ];
        expect(await claimDeliveries(db, keys, NOW, LEASE)).toEqual(['claimed', 'claimed', 'claimed', 'busy']);
        expect(await deliveriesOf(db, ANNOUNCEMENT)).toEqual([
          pendingRow({ ...key, channel: 'email' }),
          pendingRow({ ...key, channel: 'sms' }),
          pendingRow({ ...key, userId: OTHER_USER, channel: 'push' }),
        ]);
        expect(await claimDeliveries(db, [], NOW, LEASE)).toEqual([]);
      });

      it('claims a batch of new, expired, live and final rows in one call, each as the single claim would', async () => {
        const db = database();
        await seed(db);
        const fresh: DeliveryKey = { ...key, channel: 'push' };
        const expired: DeliveryKey = { ...key, channel: 'sms' };
        const live: DeliveryKey = { ...key, userId: OTHER_USER, channel: 'sms' };
        const final: DeliveryKey = { ...key, channel: 'email' };
        await claimDelivery(db, expired, NOW, LEASE, 'planned-sms');
        await claimDelivery(db, final, NOW, LEASE);
        await finishDelivery(db, final, { result: 'success' }, isoAfter(NOW, 1));
        const later = isoAfter(LEASE, 1);
        const nextLease = isoAfter(LEASE, 60_000);
        await claimDelivery(db, live, later, nextLease);
        const claims = await claimDeliveries(db, [final, { ...fresh, plannedMessageId: 'op-1' }, live, expired], later, nextLease);
        expect(claims).toEqual(['done', 'claimed', 'busy', 'claimed']);
        const rows = await deliveriesOf(db, ANNOUNCEMENT);
        expect(rows.find((row) => row.userId === USER && row.channel === 'push')).toEqual(
          pendingRow(fresh, { providerMessageId: 'op-1', claimedUntil: nextLease, createdAt: later, updatedAt: later }),
        );
        // Reclaimed: its planned id stays, the claims are counted.
        expect(rows.find((row) => row.userId === USER && row.channel === 'sms')).toEqual(
          pendingRow(expired, { attempts: 2, providerMessageId: 'planned-sms', claimedUntil: nextLease, updatedAt: later }),
        );
        expect(rows.find((row) => row.userId === OTHER_USER)).toMatchObject({ attempts: 1, claimedUntil: nextLease });
        expect(rows.find((row) => row.channel === 'email')).toMatchObject({ result: 'success', attempts: 1 });
      });

      it('gives exactly one of two claims of the same expired row with the same lease the row', async () => {
        const db = database();
        await seed(db);
        await claimDelivery(db, key, NOW, LEASE);
        const later = isoAfter(LEASE, 1);
        const nextLease = isoAfter(LEASE, 60_000);
        // The same clock reading and lease: only the statements' own answer tells the claims apart.
        const claims = await Promise.all([claimDeliveries(db, [key], later, nextLease), claimDeliveries(db, [key], later, nextLease)]);
        expect(claims.flat().sort()).toEqual(['busy', 'claimed']);
        expect(await deliveriesOf(db, ANNOUNCEMENT)).toEqual([pendingRow(key, { attempts: 2, claimedUntil: nextLease, updatedAt: later })]);
      });

      it('records a row\'s first send once, before it: pending rows only, an earlier first send kept, and starts it over on request', async () => {
        const db = database();
        await seed(db);
        const sms: DeliveryKey = { ...key, channel: 'sms' };
        const email: DeliveryKey = { ...key, channel: 'email' };
        const done: DeliveryKey = { ...key, userId: OTHER_USER, channel: 'email' };
        for (const k of [sms, email, done]) await claimDelivery(db, k, NOW, LEASE);
        await finishDelivery(db, done, { result: 'accepted' }, NOW);
        const first = isoAfter(NOW, 10);
        expect(await markSendStarts(db, db.dialect, ANNOUNCEMENT, [sms], first)).toEqual(new Map([[`${USER}/sms`, first]]));
        const later = isoAfter(NOW, 20);
        const marks = await markSendStarts(db, db.dialect, ANNOUNCEMENT, [sms, email, done], later);
        expect(marks).toEqual(new Map([[`${USER}/sms`, first], [`${USER}/email`, later]]));
        expect(await markSendStarts(db, db.dialect, ANNOUNCEMENT, [], later)).toEqual(new Map());
        const restarted = isoAfter(NOW, 30);
        await restartSendStart(db, sms, restarted);
        await restartSendStart(db, done, restarted);
        const other: DeliveryKey = { ...key, userId: OTHER_USER, channel: 'sms' };
        await claimDelivery(db, other, NOW, LEASE);
        await markSendStarts(db, db.dialect, ANNOUNCEMENT, [other], restarted);
        await clearSendStart(db, other);
        const rows = await db.query<{ channel: string; userId: string; firstSentAt: string | null }>(
          'SELECT userId, channel, firstSentAt FROM NotificationDeliveries WHERE announcementId = @announcementId ORDER BY userId, channel',
          { announcementId: ANNOUNCEMENT },
        );
        expect(rows).toEqual([
          { userId: USER, channel: 'email', firstSentAt: later },
          { userId: USER, channel: 'sms', firstSentAt: restarted },
          { userId: OTHER_USER, channel: 'email', firstSentAt: null },
          { userId: OTHER_USER, channel: 'sms', firstSentAt: null },
        ]);
      });

      it('finds the rows whose lease ran out unreleased, and hands each over once by a compare-and-set', async () => {
        const db = database();
        await seed(db);
        const crashed: DeliveryKey = { ...key, channel: 'sms' };
        const renewed: DeliveryKey = { ...key, userId: OTHER_USER, channel: 'push' };
        const released: DeliveryKey = { ...key, userId: OTHER_USER, channel: 'sms' };
        const finished: DeliveryKey = { ...key, userId: OTHER_USER, channel: 'email' };
        for (const k of [crashed, renewed, released, finished]) expect(await claimDelivery(db, k, NOW, LEASE)).toBe('claimed');
        const longer = isoAfter(LEASE, 60_000);
        await releaseDelivery(db, released, isoAfter(NOW, 5));
        await finishDelivery(db, finished, { result: 'accepted' }, isoAfter(NOW, 6));
        expect(await renewDeliveryLeases(db, db.dialect, ANNOUNCEMENT, [renewed], LEASE, longer, isoAfter(NOW, 20_000))).toBe(1);
        // Before the lease ends nothing is stalled; at its end only the row nobody renewed or released.
        expect(await stalledDeliveries(db, isoAfter(LEASE, -1), 10)).toEqual([]);
        expect(await stalledDeliveries(db, LEASE, 10)).toEqual([{ ...crashed, claimedUntil: LEASE }]);
        const later = isoAfter(longer, 1);
        expect(await stalledDeliveries(db, later, 10)).toEqual([
          { ...crashed, claimedUntil: LEASE },
          { ...renewed, claimedUntil: longer },
        ]);
        expect(await stalledDeliveries(db, later, 1)).toEqual([{ ...crashed, claimedUntil: LEASE }]);
        // Two hand-overs racing: each row goes to exactly one.
        const rows = [crashed, renewed, released, finished].map(({ userId, channel }) => ({ userId, channel }));
        const [first, second] = await Promise.all([
          markStalledHandedOver(db, db.dialect, ANNOUNCEMENT, rows, later),
          markStalledHandedOver(db, db.dialect, ANNOUNCEMENT, rows, later),
        ]);
        expect([...(first ?? []), ...(second ?? [])].map((row) => row.channel).sort()).toEqual(['push', 'sms']);
        expect(await markStalledHandedOver(db, db.dialect, ANNOUNCEMENT, [], later)).toEqual([]);
        expect(await stalledDeliveries(db, isoAfter(later, 600_000), 10)).toEqual([]);
        // Handed over: free for the fresh message's claim at once.
        expect(await claimDelivery(db, crashed, later, isoAfter(later, 60_000))).toBe('claimed');
        expect(await userIdBefore(db, OTHER_USER)).toBe(USER);
        expect(await userIdBefore(db, USER)).toBe('');
      });

      it('gives exactly one of two racing first claims the row', async () => {
        const db = database();
        await seed(db);
        const claims = await Promise.all([claimDelivery(db, key, NOW, LEASE), claimDelivery(db, key, NOW, LEASE)]);
        expect([...claims].sort()).toEqual(['busy', 'claimed']);
        expect(await deliveriesOf(db, ANNOUNCEMENT)).toEqual([pendingRow(key)]);
      });
    });

    describe('SMS spend guard', () => {
      const reserveMany = async (db: Database, count: number, settings: SmsSpendSettings, now: Date, segments = 1) => {
        const results: SmsReservation[] = [];
        for (let n = 0; n < count; n += 1) results.push(await reserveSms(db, settings, now, segments));
        return results;
      };
      const messagesOf = async (db: Database, month: string) => {
        const [row] = await db.query<{ messages: number | string }>('SELECT messages FROM SmsMonthlySpend WHERE month = @month', { month });
        return row ? Number(row.messages) : 0;
      };

      it('never lets racing reservations pass the cap; warns once and reports the cap once', async () => {
        const db = database();
        const now = new Date('2031-05-10T08:00:00.000Z');
        const results = await Promise.all(Array.from({ length: 25 }, () => reserveSms(db, TEN_SMS, now, 1)));
        expect(results.filter((result) => result.ok)).toHaveLength(10);
        expect(results.filter((result) => result.ok && result.warning)).toEqual([
          { ok: true, month: '2031-05', costMicroUsd: 30_000, warning: { spentUsd: expect.any(Number), capUsd: 0.3 } },
        ]);
        expect(results.filter((result) => !result.ok && result.capReached)).toEqual([
          { ok: false, month: '2031-05', capReached: { spentUsd: 0.3, capUsd: 0.3 } },
        ]);
        expect(await spentUsd(db, '2031-05')).toBe(0.3);
      });

      it('never lets racing multi-segment reservations pass the cap', async () => {
        const db = database();
        const now = new Date('2031-09-10T08:00:00.000Z');
        // 3 units each under a 10-unit cap: three fit (9 units), the rest would cross it.
        const results = await Promise.all(Array.from({ length: 12 }, () => reserveSms(db, TEN_SMS, now, 3)));
        expect(results.filter((result) => result.ok)).toHaveLength(3);
        expect(await spentUsd(db, '2031-09')).toBe(0.27);
        expect(await messagesOf(db, '2031-09')).toBe(3);
        expect(await reserveSms(db, TEN_SMS, now, 1)).toEqual({ ok: true, month: '2031-09', costMicroUsd: 30_000 });
        expect(await spentUsd(db, '2031-09')).toBe(0.3);
      });

      it('reserves segments × unit cost, refuses a message that would cross the cap whole, and refunds exactly the cost', async () => {
        const db = database();
        const now = new Date('2031-10-10T08:00:00.000Z');
        const three = await reserveSms(db, TEN_SMS, now, 3);
        expect(three).toEqual({ ok: true, month: '2031-10', costMicroUsd: 90_000 });
        expect(await spentUsd(db, '2031-10')).toBe(0.09);
        expect(await messagesOf(db, '2031-10')).toBe(1);

        await reserveMany(db, 4, TEN_SMS, now, 1);
        expect(await spentUsd(db, '2031-10')).toBe(0.21);
        const crossing = await reserveSms(db, TEN_SMS, now, 4);
        expect(crossing).toEqual({ ok: false, month: '2031-10', capReached: { spentUsd: 0.21, capUsd: 0.3 } });
        expect(await spentUsd(db, '2031-10')).toBe(0.21);
        expect(await messagesOf(db, '2031-10')).toBe(5);
        expect(await reserveSms(db, TEN_SMS, now, 3)).toEqual({
          ok: true,
          month: '2031-10',
          costMicroUsd: 90_000,
          warning: { spentUsd: 0.3, capUsd: 0.3 },
        });
        expect(await reserveSms(db, TEN_SMS, now, 1)).toEqual({ ok: false, month: '2031-10' });

        if (!three.ok) throw new Error('unreachable');
        await refundSms(db, three, now);
        expect(await spentUsd(db, '2031-10')).toBe(0.21);
        expect(await messagesOf(db, '2031-10')).toBe(5);
        expect(await reserveSms(db, TEN_SMS, now, 4)).toEqual({ ok: false, month: '2031-10' });
        expect(await reserveSms(db, TEN_SMS, now, 3)).toMatchObject({ ok: true, costMicroUsd: 90_000 });
        expect(await spentUsd(db, '2031-10')).toBe(0.3);
      });

      it('reserves the SMS that start together in one statement, with the same cap, warning and refusals as one at a time', async () => {
        const db = database();
        const now = new Date('2031-11-10T08:00:00.000Z');
        // The month's first group creates its row; 7 of 10 units, below the 80 % warning.
        expect(await reserveSmsGroup(db, TEN_SMS, now, [1, 3, 3])).toEqual([
          { ok: true, month: '2031-11', costMicroUsd: 30_000 },
          { ok: true, month: '2031-11', costMicroUsd: 90_000 },
          { ok: true, month: '2031-11', costMicroUsd: 90_000 },
        ]);
        expect(await messagesOf(db, '2031-11')).toBe(3);
        // Crossing 80 %: the group's last reservation carries the month's one warning.
        expect(await reserveSmsGroup(db, TEN_SMS, now, [1, 1])).toEqual([
          { ok: true, month: '2031-11', costMicroUsd: 30_000 },
          { ok: true, month: '2031-11', costMicroUsd: 30_000, warning: { spentUsd: 0.27, capUsd: 0.3 } },
        ]);
        // A group that does not fit whole: those that still fit, in order; the cap's first refusal flagged once.
        expect(await reserveSmsGroup(db, TEN_SMS, now, [2, 1, 1])).toEqual([
          { ok: false, month: '2031-11', capReached: { spentUsd: 0.27, capUsd: 0.3 } },
          { ok: true, month: '2031-11', costMicroUsd: 30_000 },
          { ok: false, month: '2031-11' },
        ]);
        expect(await spentUsd(db, '2031-11')).toBe(0.3);
        expect(await messagesOf(db, '2031-11')).toBe(6);
        expect(await reserveSmsGroup(db, TEN_SMS, now, [])).toEqual([]);
      });

      it('never lets racing groups of reservations pass the cap, and warns once', async () => {
        const db = database();
        const now = new Date('2031-12-10T08:00:00.000Z');
        const groups = await Promise.all(Array.from({ length: 6 }, () => reserveSmsGroup(db, TEN_SMS, now, [1, 1, 1])));
        const results = groups.flat();
        expect(results.filter((result) => result.ok)).toHaveLength(10);
        expect(results.filter((result) => result.ok && result.warning)).toHaveLength(1);
        expect(results.filter((result) => !result.ok && result.capReached)).toHaveLength(1);
        expect(await spentUsd(db, '2031-12')).toBe(0.3);
        expect(await messagesOf(db, '2031-12')).toBe(10);
      });

      it('warns on the reservation that reaches 80 %, gives refunds back, and keeps months apart', async () => {
        const db = database();
        const may = new Date('2031-05-31T23:59:59.999Z');
        const results = await reserveMany(db, 10, TEN_SMS, may);
        expect(results.map((result) => result.ok && result.warning !== undefined)).toEqual([...Array<boolean>(7).fill(false), true, false, false]);
        expect(results[7]).toEqual({ ok: true, month: '2031-05', costMicroUsd: 30_000, warning: { spentUsd: 0.24, capUsd: 0.3 } });
        await refundSms(db, { month: '2031-05', costMicroUsd: 30_000 }, may);
        expect(await spentUsd(db, '2031-05')).toBe(0.27);
        expect(await reserveSms(db, TEN_SMS, may, 1)).toEqual({ ok: true, month: '2031-05', costMicroUsd: 30_000 });
        expect(await reserveSms(db, TEN_SMS, may, 1)).toEqual({ ok: false, month: '2031-05', capReached: { spentUsd: 0.3, capUsd: 0.3 } });

        const june = new Date('2031-06-01T00:00:00.000Z');
        expect(await reserveSms(db, TEN_SMS, june, 1)).toEqual({ ok: true, month: '2031-06', costMicroUsd: 30_000 });
        expect(await spentUsd(db, '2031-06')).toBe(0.03);
        expect(await spentUsd(db, '2031-07')).toBe(0);
        // A refund never takes a month below zero.
        await refundSms(db, { month: '2031-07', costMicroUsd: 30_000 }, june);
        expect(await spentUsd(db, '2031-07')).toBe(0);
        await refundSms(db, { month: '2031-06', costMicroUsd: 60_000 }, june);
        expect(await spentUsd(db, '2031-06')).toBe(0.03);
      });

      it('counts amounts past 2^31 millionths exactly', async () => {
        const db = database();
        const big: SmsSpendSettings = { monthlyCapUsd: 5000, unitCostUsd: 2500 };
        const now = new Date('2031-08-15T12:00:00.000Z');
        expect(await reserveSms(db, big, now, 1)).toEqual({ ok: true, month: '2031-08', costMicroUsd: 2_500_000_000 });
        expect(await reserveSms(db, big, now, 1)).toEqual({
          ok: true,
          month: '2031-08',
          costMicroUsd: 2_500_000_000,
          warning: { spentUsd: 5000, capUsd: 5000 },
        });
        expect(await reserveSms(db, big, now, 1)).toEqual({ ok: false, month: '2031-08', capReached: { spentUsd: 5000, capUsd: 5000 } });
        expect(await spentUsd(db, '2031-08')).toBe(5000);
        await refundSms(db, { month: '2031-08', costMicroUsd: 2_500_000_000 }, now);
        expect(await spentUsd(db, '2031-08')).toBe(2500);
        expect(await reserveSms(db, big, now, 2)).toEqual({ ok: false, month: '2031-08' });
      });
    });

    describe('push tickets', () => {
      const ticket = (ticketId: string, sentAt: string, overrides: Partial<PushTicket> = {}): PushTicket => ({
        ticketId,
        token: 'ExponentPushToken[AbCdEf-123]',
        userId: USER,
        announcementId: ANNOUNCEMENT,
        sentAt,
        ...overrides,
      });

      it('keeps a ticket seen twice once, and hands them out oldest first up to the limit', async () => {
        const db = database();
        await seed(db);
        const tickets = [
          ticket('t-3', isoAfter(NOW, 2000)),
          ticket('t-2', NOW, { userId: OTHER_USER, token: 'ExponentPushToken[abcdef-123]' }),
          ticket('t-1', NOW),
          ticket('t-4', isoAfter(NOW, 2001)),
        ];
        await db.transaction((tx) => recordPushTickets(tx, db.dialect, [...tickets, ticket('t-1', isoAfter(NOW, 9))]));
        expect(await ticketsSentBefore(db, isoAfter(NOW, 2000), 10)).toEqual([tickets[2], tickets[1], tickets[0]]);
        expect(await ticketsSentBefore(db, isoAfter(NOW, 2000), 2)).toEqual([tickets[2], tickets[1]]);
        await deletePushTicket(db, tickets[2] as PushTicket);
        expect((await ticketsSentBefore(db, isoAfter(NOW, 5000), 10)).map((row) => row.ticketId)).toEqual(['t-2', 't-3', 't-4']);
      });
    });
  });
}
