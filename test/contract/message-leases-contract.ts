import { describe, expect, it } from 'vitest';
import {
  claimMessageLease,
  finishMessageLease,
  messageLeases,
  overdueMessages,
  recordQueuedMessage,
  releaseMessageLease,
  renewMessageLease,
} from '../../shared/notifications/ledger/message-leases';
import { isoAfter, migratedDatabasePerSuite } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

const T0 = '2031-05-10T08:00:00.000Z';
const at = (seconds: number): string => isoAfter(T0, seconds * 1000);
const SPLIT = { messageKey: 'split/a1', messageText: '{"announcementId":"a1"}' };
const BATCH = { messageKey: 'batch/a1//u20', messageText: '{"announcementId":"a1","batch":{"afterUserId":"","throughUserId":"u20","size":20}}' };

/**
 * Registers the contract suite of the fan-out queue's message leases
 * (`shared/notifications/ledger/message-leases.ts`) for one engine.
 */
export function describeMessageLeasesContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Fan-out message leases contract: ${name}`, () => {
    const database = migratedDatabasePerSuite(factory);
    const states = async () => (await messageLeases(database())).map((row) => `${row.messageKey}:${row.state}:${row.leaseUntil}:${row.attempts}`);

    it('records a message queued, lets one invocation take it, and deletes it when done', async () => {
      const db = database();
      await recordQueuedMessage(db, SPLIT, at(0), at(60));
      expect(await states()).toEqual([`split/a1:queued:${at(60)}:0`]);
      expect(await claimMessageLease(db, SPLIT, at(1), at(61))).toBe(true);
      // A copy of the message while the holder lives: left to it.
      expect(await claimMessageLease(db, SPLIT, at(2), at(62))).toBe(false);
      // So is an enqueue of a copy: the holder does that work.
      await recordQueuedMessage(db, SPLIT, at(3), at(63));
      expect(await renewMessageLease(db, SPLIT.messageKey, at(61), at(81))).toBe(true);
      expect(await renewMessageLease(db, SPLIT.messageKey, at(61), at(82)), 'only the lease the holder set').toBe(false);
      expect(await states()).toEqual([`split/a1:running:${at(81)}:1`]);
      await finishMessageLease(db, SPLIT.messageKey, at(81));
      expect(await states()).toEqual([]);
    });

    it('takes a message that has no row, and a row whose holder\'s lease ran out', async () => {
      const db = database();
      expect(await claimMessageLease(db, BATCH, at(0), at(60))).toBe(true);
      expect(await claimMessageLease(db, BATCH, at(59), at(119))).toBe(false);
      expect(await claimMessageLease(db, BATCH, at(60), at(120))).toBe(true);
      // The first holder, back from the dead, changes nothing.
      await finishMessageLease(db, BATCH.messageKey, at(60));
      expect(await renewMessageLease(db, BATCH.messageKey, at(60), at(130))).toBe(false);
      expect(await states()).toEqual([`${BATCH.messageKey}:running:${at(120)}:2`]);
    });

    it('queues a released row again for the retry, and an enqueue re-arms an expired one', async () => {
      const db = database();
      expect(await claimMessageLease(db, SPLIT, at(0), at(60))).toBe(true);
      await releaseMessageLease(db, SPLIT.messageKey, at(60), at(70), at(10));
      expect(await states()).toEqual([`split/a1:queued:${at(70)}:1`]);
      expect(await claimMessageLease(db, SPLIT, at(11), at(71))).toBe(true);
      await recordQueuedMessage(db, SPLIT, at(80), at(140));
      expect(await states()).toEqual([`split/a1:queued:${at(140)}:2`]);
    });

    it('finds running rows past their lease, and queued ones past their grace only while nothing is being taken', async () => {
      const db = database();
      await recordQueuedMessage(db, BATCH, at(0), at(60));
      expect(await claimMessageLease(db, SPLIT, at(10), at(70))).toBe(true);
      expect(await overdueMessages(db, at(59), at(-1), 10)).toEqual([]);
      // The split's holder took it 55 s ago and lives: the queued batch is only waiting.
      expect(await overdueMessages(db, at(65), at(5), 10)).toEqual([]);
      // Its lease ran out: both are overdue (nothing taken since), the batch's grace first.
      expect((await overdueMessages(db, at(71), at(11), 10)).map((row) => `${row.messageKey}:${row.state}`)).toEqual([`${BATCH.messageKey}:queued`, 'split/a1:running']);
      const [first] = await overdueMessages(db, at(71), at(11), 1);
      expect(first).toMatchObject({ messageKey: BATCH.messageKey, messageText: BATCH.messageText, state: 'queued' });
      expect(new Date(String(first?.leaseUntil)).toISOString()).toBe(at(60));
    });
  });
}
