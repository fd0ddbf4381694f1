import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimDeliveries, deliveriesOf, releaseDelivery, type DeliveryKey } from '../../shared/notifications/ledger/delivery-ledger';
import { DELIVERY_LEASE_MS } from '../../shared/notifications/ledger/lease-heartbeat';
import type { FanoutMessage } from '../../shared/messages/fanout-message';
import { redriveStalledBatches } from '../../shared/notifications/jobs/redrive-stalled-batches';
import { createFanoutHarness, expectNoFanoutLeaks, type FanoutHarness } from './fanout-harness';

/**
 * Recovery from the ledger. A batch whose holder died leaves its rows `pending`
 * under a lease nobody renews or releases; the recovery timer's use case finds them once that lease
 * is over and enqueues a fresh batch message over their users (the host's own message may stay
 * invisible for 10 minutes). Rows under a live lease or given back by a failing invocation (whose
 * message is already coming back) are not re-driven, and each stalled row is handed over once.
 */
let f: FanoutHarness;

beforeEach(async () => {
  f = await createFanoutHarness();
});

afterEach(async () => {
  expectNoFanoutLeaks(f);
  await f.close();
});

/** Splits the fan-out and claims the first batch's rows as an invocation that then dies would. */
async function crashedBatch(): Promise<{ announcementId: string; keys: DeliveryKey[]; batch: FanoutMessage }> {
  const readers = [await f.recipient(), await f.recipient(), await f.recipient(), await f.recipient()];
  const announcement = await f.announcement(['push', 'sms', 'email']);
  await f.handle({ announcementId: announcement.id });
  const batch = f.queue.messages[0] as FanoutMessage;
  const keys = readers.slice(0, 3).flatMap((reader) => (['push', 'sms', 'email'] as const).map((channel) => ({ announcementId: announcement.id, userId: reader.user.id, channel })));
  const now = f.h.clock.now();
  const claims = await claimDeliveries(f.db, keys, now.toISOString(), new Date(now.getTime() + DELIVERY_LEASE_MS).toISOString());
  expect(claims.every((claim) => claim === 'claimed')).toBe(true);
  return { announcementId: announcement.id, keys, batch };
}

describe('re-driving stalled batches', () => {
  it('enqueues one fresh message over the rows of a dead holder once its lease is over, and delivers them once', async () => {
    const { announcementId, keys, batch } = await crashedBatch();
    const enqueuedBefore = f.queue.messages.length;
    f.h.clock.advance(DELIVERY_LEASE_MS - 1);
    expect(await redriveStalledBatches(f.deps)).toEqual({ messages: 0, rows: 0 });
    f.h.clock.advance(1);
    expect(await redriveStalledBatches(f.deps)).toEqual({ messages: 1, rows: 9 });
    const redriven = f.queue.messages.slice(enqueuedBefore);
    // Its range is the batch's: from just below its first user (the user before, whoever that is) to its last.
    expect(redriven).toEqual([{ announcementId, batch: { afterUserId: expect.any(String), throughUserId: batch.batch?.throughUserId, size: 3 }, redriven: true }]);
    const after = redriven[0]?.batch?.afterUserId as string;
    expect(after >= (batch.batch?.afterUserId as string) && after < (keys[0]?.userId as string)).toBe(true);
    // Handed over once: the next run finds nothing, though nobody has claimed the rows yet.
    f.h.clock.advance(60_000);
    expect(await redriveStalledBatches(f.deps)).toEqual({ messages: 0, rows: 0 });
    const result = await f.handle(redriven[0]);
    expect(result).toMatchObject({ kind: 'batch', recipients: 3 });
    const rows = (await deliveriesOf(f.db, announcementId)).filter((row) => keys.some((key) => key.userId === row.userId));
    expect(rows.map((row) => row.result).sort()).toEqual([...Array(6).fill('accepted'), ...Array(3).fill('success')]);
    expect(f.providers.calls.sms).toHaveLength(3);
    expect(f.providers.calls.email).toHaveLength(3);
    // The host's own message, seen again 10 minutes later, sends nothing twice.
    f.h.clock.advance(10 * 60_000);
    await f.handle(batch);
    expect(f.providers.calls.sms).toHaveLength(3);
    expect(f.h.sink.withMessage('stalled fan-out batch re-driven')).toEqual([
      expect.objectContaining({ level: 'warn', announcementId, stalledRows: 9, users: 3, errorCode: 'delivery_stalled' }),
    ]);
    expect(f.h.telemetry.itemsOf('event', 'notification.redrive')).toHaveLength(1);
  });

  it('re-drives each dead batch over its own range, never over a batch between two of them', async () => {
    const readers = [];
    for (let n = 0; n < 9; n += 1) readers.push(await f.recipient());
    const announcement = await f.announcement(['sms']);
    await f.handle({ announcementId: announcement.id });
    const batches = f.queue.messages.slice(-3) as FanoutMessage[];
    // Batches 0 and 2 claimed by two invocations that died; batch 1's message has not run yet.
    for (const [index, offsetMs] of [[0, 0], [2, 5]] as const) {
      const keys = readers.slice(index * 3, index * 3 + 3).map((reader) => ({ announcementId: announcement.id, userId: reader.user.id, channel: 'sms' as const }));
      const at = f.h.clock.now().getTime() + offsetMs;
      await claimDeliveries(f.db, keys, new Date(at).toISOString(), new Date(at + DELIVERY_LEASE_MS).toISOString());
    }
    f.h.clock.advance(DELIVERY_LEASE_MS + 5);
    const before = f.queue.messages.length;
    expect(await redriveStalledBatches(f.deps)).toEqual({ messages: 2, rows: 6 });
    const ranges = (f.queue.messages.slice(before) as FanoutMessage[]).map((message) => [message.batch?.afterUserId, message.batch?.throughUserId]);
    // Batch 2's starts right after batch 1's last user; batch 0's just below its first user.
    expect(ranges).toEqual([
      [f.author.id < (readers[0]?.user.id as string) ? f.author.id : '', batches[0]?.batch?.throughUserId],
      [batches[2]?.batch?.afterUserId, batches[2]?.batch?.throughUserId],
    ]);
  });

  it('leaves rows under a live lease, and rows a failing invocation gave back, to the queue', async () => {
    const { keys } = await crashedBatch();
    const [released] = keys;
    await releaseDelivery(f.db, released as DeliveryKey, f.h.clock.now().toISOString());
    f.h.clock.advance(DELIVERY_LEASE_MS);
    const enqueuedBefore = f.queue.messages.length;
    expect(await redriveStalledBatches(f.deps)).toEqual({ messages: 1, rows: 8 });
    expect(f.queue.messages.length).toBe(enqueuedBefore + 1);
  });

  it('ends a re-driven message quietly when a live holder has its rows, and fails an ordinary one so the queue retries', async () => {
    const { batch } = await crashedBatch();
    const redriven: FanoutMessage = { ...batch, redriven: true };
    // The rows are under the dead holder's live lease still: busy for both messages.
    await expect(f.handle(redriven)).resolves.toMatchObject({ kind: 'batch' });
    await expect(f.handle(batch)).rejects.toThrow(/still owed/);
  });
});
