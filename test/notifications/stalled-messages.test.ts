import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FanoutMessage } from '../../shared/messages/fanout-message';
import { inMemoryNoticeQueue } from '../../shared/messages/notice-queue';
import { decodeNotificationMessage, type NotificationMessage } from '../../shared/messages/notification-message';
import { holdMessageLease, leasedMessageOf as leaseOf, MESSAGE_START_GRACE_MS, recordingFanoutQueue, recordingNoticeQueue } from '../../shared/notifications/engine/message-leasing';
import { handleFanoutMessage } from '../../shared/notifications/jobs/handle-fanout-message';
import { redriveStalledMessages, type MessageRedriveDeps } from '../../shared/notifications/jobs/redrive-stalled-messages';
import { DELIVERY_LEASE_MS } from '../../shared/notifications/ledger/lease-heartbeat';
import { messageLeases } from '../../shared/notifications/ledger/message-leases';
import { createFanoutHarness, expectNoFanoutLeaks, type FanoutHarness } from './fanout-harness';

/**
 * Recovery of the fan-out queue's messages from their lease rows: a message is recorded when it is
 * enqueued and taken by the invocation handling it, so a split or batch whose host died, before or
 * after its first write, is enqueued again from the database once its lease (or start grace) is
 * over, while a live holder, a queue busy with a backlog and a finished message are left alone.
 */
let f: FanoutHarness;
const leasedMessageOf = (value: unknown) => leaseOf(decodeNotificationMessage(value) as NotificationMessage);
let deps: MessageRedriveDeps;
let notices: ReturnType<typeof inMemoryNoticeQueue>;

beforeEach(async () => {
  f = await createFanoutHarness();
  notices = inMemoryNoticeQueue();
  const recording = { database: f.deps.database, clock: f.h.clock };
  f.deps.queue = recordingFanoutQueue(f.queue, recording);
  deps = { ...f.deps, noticeQueue: recordingNoticeQueue(notices, recording) };
});

afterEach(async () => {
  expectNoFanoutLeaks(f);
  await f.close();
});

const rows = async () => (await messageLeases(f.db)).map((row) => `${row.messageKey.split('/')[0]}:${row.state}`);
const redriveLines = () => f.h.sink.lines.filter((line) => line.message === 'stalled fan-out message re-driven');

describe('re-driving stalled fan-out messages', () => {
  it('leaves no row behind a message handled to the end', async () => {
    await f.recipient();
    const announcement = await f.announcement();
    await f.deps.queue.enqueue({ announcementId: announcement.id });
    expect(await rows()).toEqual(['split:queued']);
    expect(await f.fanOut(announcement.id)).toEqual([]);
    expect(await rows()).toEqual([]);
    f.h.clock.advance(10 * DELIVERY_LEASE_MS);
    expect(await redriveStalledMessages(deps)).toEqual({ running: 0, queued: 0 });
  });

  it("enqueues a split again once its dead holder's lease is over, and the copy splits", async () => {
    for (let n = 0; n < 4; n += 1) await f.recipient();
    const announcement = await f.announcement();
    await f.deps.queue.enqueue({ announcementId: announcement.id });
    // The invocation takes the message, then dies before anything else.
    const leased = leasedMessageOf({ announcementId: announcement.id });
    expect(await holdMessageLease({ ...f.deps, clock: f.h.clock }, leased, 3_600_000)).toBeDefined();
    const enqueued = f.queue.messages.length;
    f.h.clock.advance(DELIVERY_LEASE_MS - 1);
    expect(await redriveStalledMessages(deps)).toEqual({ running: 0, queued: 0 });
    f.h.clock.advance(1);
    expect(await redriveStalledMessages(deps)).toEqual({ running: 1, queued: 0 });
    expect(f.queue.messages.slice(enqueued)).toEqual([{ announcementId: announcement.id }]);
    expect(redriveLines()).toEqual([expect.objectContaining({ level: 'warn', messageKind: 'split', leaseState: 'running', errorCode: 'message_stalled' })]);
    expect(f.h.telemetry.itemsOf('event', 'notification.redrive_message')).toHaveLength(1);
    // Queued again for the copy: the next run leaves it alone.
    expect(await redriveStalledMessages(deps)).toEqual({ running: 0, queued: 0 });
    expect(await f.handle(f.queue.messages[enqueued])).toMatchObject({ kind: 'split', batches: 2 });
  });

  it('enqueues batches nobody took once their grace is over and nothing else is being taken, as re-driven', async () => {
    for (let n = 0; n < 4; n += 1) await f.recipient();
    const announcement = await f.announcement();
    await f.handle({ announcementId: announcement.id });
    const batches = f.queue.messages.slice() as FanoutMessage[];
    expect(batches).toHaveLength(2);
    expect(await rows()).toEqual(['batch:queued', 'batch:queued']);
    // Another message was just taken: the queue is busy, the batches only waiting.
    f.h.clock.advance(MESSAGE_START_GRACE_MS - 1_000);
    await f.deps.queue.enqueue({ announcementId: (await f.announcement()).id });
    const other = leasedMessageOf(f.queue.messages.at(-1));
    const held = await holdMessageLease({ ...f.deps, clock: f.h.clock }, other, 3_600_000);
    f.h.clock.advance(1_000);
    expect(await redriveStalledMessages(deps)).toEqual({ running: 0, queued: 0 });
    await held?.finish();
    const enqueued = f.queue.messages.length;
    expect(await redriveStalledMessages(deps)).toEqual({ running: 0, queued: 2 });
    expect(f.queue.messages.slice(enqueued)).toEqual(batches.map((batch) => ({ ...batch, redriven: true })));
    expect(redriveLines().map((line) => line.leaseState)).toEqual(['queued', 'queued']);
    // Delivered once, by the first copy of each; the host's own copy, coming back later, sends nothing.
    for (const copy of f.queue.messages.slice(enqueued)) expect(await f.handle(copy)).toMatchObject({ kind: 'batch' });
    for (const original of batches) await f.handle(original);
    expect(f.providers.calls.sms).toHaveLength(4);
    expect(await rows()).toEqual([]);
  });

  it('ends a copy at once while another invocation holds the message', async () => {
    await f.recipient();
    const announcement = await f.announcement();
    const leased = leasedMessageOf({ announcementId: announcement.id });
    const held = await holdMessageLease({ ...f.deps, clock: f.h.clock }, leased, 3_600_000);
    expect(await handleFanoutMessage({ announcementId: announcement.id }, f.deps)).toEqual({ kind: 'held_elsewhere' });
    expect(f.queue.messages).toEqual([]);
    await held?.finish();
    expect(await handleFanoutMessage({ announcementId: announcement.id }, f.deps)).toMatchObject({ kind: 'split' });
  });

  it('stops at the first enqueue that fails, leaving the rows overdue for the next run', async () => {
    const announcements = [await f.announcement(), await f.announcement()];
    for (const { id } of announcements) await f.deps.queue.enqueue({ announcementId: id });
    f.h.clock.advance(MESSAGE_START_GRACE_MS);
    const down = { enqueue: () => Promise.reject(new Error('queue down')) };
    expect(await redriveStalledMessages({ ...deps, queue: down })).toEqual({ running: 0, queued: 0 });
    expect(f.h.sink.withMessage('stalled fan-out message not re-driven')).toEqual([expect.objectContaining({ level: 'warn', messageKind: 'split' })]);
    expect(await redriveStalledMessages(deps)).toEqual({ running: 0, queued: 2 });
  });

  it('re-drives an account notice through the notice queue', async () => {
    const message = { notice: { id: '0b7a1c2e-1111-4c3d-8e9f-0123456789ab', kind: 'child_locked' as const } };
    await deps.noticeQueue.enqueue(message);
    const leased = leasedMessageOf(message);
    expect(await holdMessageLease({ ...f.deps, clock: f.h.clock }, leased, 3_600_000)).toBeDefined();
    f.h.clock.advance(DELIVERY_LEASE_MS);
    expect(await redriveStalledMessages(deps)).toEqual({ running: 1, queued: 0 });
    expect(notices.messages).toEqual([message, message]);
    expect(redriveLines()).toEqual([expect.objectContaining({ messageKind: 'notice', noticeId: message.notice.id })]);
  });
});
