import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkPushReceipts, RECEIPT_KEPT_FOR_MS, RECEIPT_READY_AFTER_MS } from '../../shared/notifications/jobs/check-push-receipts';
import { createFanoutHarness, expectNoFanoutLeaks, type FanoutHarness } from './fanout-harness';

/** Push receipts: a device reported unregistered only by its receipt is removed later, once. */
let f: FanoutHarness;

beforeEach(async () => {
  f = await createFanoutHarness();
});

afterEach(async () => {
  expectNoFanoutLeaks(f);
  await f.close();
});

const tickets = () => f.h.rows<{ token: string }>('SELECT token FROM PushTickets ORDER BY token').map((row) => row.token);
const devices = () => f.h.rows<{ token: string }>('SELECT token FROM PushTokens ORDER BY token').map((row) => row.token);

describe('push receipts', () => {
  it('keeps a ticket per accepted message and reads receipts only once they are due', async () => {
    const reader = await f.recipient({ devices: 2 });
    const announcement = await f.announcement(['push']);
    await f.fanOut(announcement.id);
    expect(tickets()).toEqual([...reader.tokens].sort());

    expect(await checkPushReceipts(f.deps)).toEqual({ checked: 0, staleTokensRemoved: 0, stillPending: 0, expired: 0 });
    expect(f.providers.receiptRequests).toEqual([]);

    f.h.clock.advance(RECEIPT_READY_AFTER_MS);
    expect(await checkPushReceipts(f.deps)).toEqual({ checked: 2, staleTokensRemoved: 0, stillPending: 0, expired: 0 });
    expect(tickets()).toEqual([]);
    expect(devices()).toEqual([...reader.tokens].sort());
  });

  it('removes a token whose receipt says DeviceNotRegistered, with a warn line and a stale_token event', async () => {
    const reader = await f.recipient({ devices: 2 });
    const [gone, kept] = reader.tokens as [string, string];
    f.providers.receiptFor(gone, { result: 'stale_token', code: 'DeviceNotRegistered' });
    const announcement = await f.announcement(['push']);
    await f.fanOut(announcement.id);
    f.h.clock.advance(RECEIPT_READY_AFTER_MS);
    expect(await checkPushReceipts(f.deps)).toMatchObject({ checked: 2, staleTokensRemoved: 1 });
    expect(devices()).toEqual([kept]);
    expect(f.h.sink.withMessage('stale push token removed')).toEqual([
      expect.objectContaining({ level: 'warn', recipientUserId: reader.user.id, source: 'receipt', providerCode: 'DeviceNotRegistered' }),
    ]);
    expect(f.h.telemetry.itemsOf('event', 'notification.delivery').map((item) => item.properties)).toContainEqual({ channel: 'push', result: 'stale_token' });
  });

  it('reads a receipt that was not ready on the next run, and forgets it after a day', async () => {
    const reader = await f.recipient({ devices: 1 });
    f.providers.receiptFor(reader.tokens[0] as string, 'absent');
    const announcement = await f.announcement(['push']);
    await f.fanOut(announcement.id);
    f.h.clock.advance(RECEIPT_READY_AFTER_MS);
    expect(await checkPushReceipts(f.deps)).toMatchObject({ stillPending: 1 });
    expect(tickets()).toHaveLength(1);
    f.h.clock.advance(RECEIPT_KEPT_FOR_MS);
    expect(await checkPushReceipts(f.deps)).toMatchObject({ expired: 1 });
    expect(tickets()).toEqual([]);
  });

  it('does not remove a device registered again after the message went out', async () => {
    const reader = await f.recipient({ devices: 1 });
    const token = reader.tokens[0] as string;
    f.providers.receiptFor(token, { result: 'stale_token', code: 'DeviceNotRegistered' });
    const announcement = await f.announcement(['push']);
    await f.fanOut(announcement.id);
    f.h.clock.advance(RECEIPT_READY_AFTER_MS);
    await f.db.execute('UPDATE PushTokens SET updatedAt = @now WHERE token = @token', { now: f.h.clock.now().toISOString(), token });
    expect(await checkPushReceipts(f.deps)).toMatchObject({ checked: 1, staleTokensRemoved: 0 });
    expect(devices()).toEqual([token]);
  });
});
