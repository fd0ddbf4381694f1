import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signInChild } from '../../shared/auth/sign-in-child';
import { setChildSecret } from '../../shared/children/child-account-store';
import { FanoutError } from '../../shared/notifications/fanout-error';
import { handleFanoutMessage } from '../../shared/notifications/handle-fanout-message';
import { findNoticeById, listNoticeDeliveries } from '../../shared/notifications/notices/account-notice-store';
import { enqueueOwedNotices } from '../../shared/notifications/notices/account-notices';
import type { NoticeMessage } from '../../shared/notifications/notices/notice-message';
import { inMemoryNoticeQueue } from '../../shared/notifications/notices/notice-queue';
import { updatePreferences } from '../../shared/notifications/notification-preferences';
import type { User } from '../../shared/users/user';
import { MINUTE } from '../auth/flows/flow-harness';
import { createFanoutHarness, expectNoFanoutLeaks, type FanoutHarness, type TestRecipient } from './fanout-harness';
import { transient500 } from './notification-fixtures';

/**
 * A parent hears when a child's account locks: the tenth consecutive failure locks the account,
 * records one notice in the transaction of the lock and enqueues it; the fan-out function delivers
 * it by push and e-mail with the child's name and what to do, exactly once per channel. The name,
 * the PIN, the parent's address and devices never reach a log line, an audit row or telemetry.
 */
let f: FanoutHarness;
let parent: TestRecipient;
let counter = 0;

beforeEach(async () => {
  f = await createFanoutHarness();
  parent = await f.recipient({ email: true, devices: 2 });
});

afterEach(async () => {
  expectNoFanoutLeaks(f);
  await f.close();
});

const PIN = '5072841';

/** A child of `parent` driven to its lock by ten wrong PINs; resolves with its id, name and the queue its notice went to. */
async function lockedChild(options: { queue?: ReturnType<typeof inMemoryNoticeQueue> | 'down' } = {}): Promise<{
  childId: string;
  username: string;
  queue: ReturnType<typeof inMemoryNoticeQueue>;
  answers: string[];
}> {
  counter += 1;
  const username = `quokka.${counter}x${Date.now() % 100_000}`;
  const child = await f.h.createChild(parent.user as User, username, PIN);
  const queue = options.queue === 'down' || options.queue === undefined ? inMemoryNoticeQueue() : options.queue;
  // The harness's own services have no queue storage: their notice queue is down.
  const deps = options.queue === 'down' ? f.h.services.childAuth : { ...f.h.services.childAuth, noticeQueue: queue };
  const answers: string[] = [];
  for (let n = 0; n < 10; n += 1) {
    // Past the longest wait of the throttle, so every guess is evaluated.
    if (n > 0) f.h.clock.advance(16 * MINUTE);
    const wrong = String(6_100_000 + n);
    f.h.canaries.add(wrong);
    const result = await signInChild({ username, secret: wrong, clientAddress: `198.51.100.${n + 1}` }, deps);
    answers.push(result.ok ? 'ok' : result.problem.code);
  }
  return { childId: child.id, username, queue, answers };
}

const lines = (message: string) => f.h.sink.withMessage(message);

describe('the lock', () => {
  it('locks at the tenth failure with the same answer, records and enqueues one notice of ids only', async () => {
    const { childId, queue, answers } = await lockedChild();
    expect(answers).toEqual(Array(10).fill('invalid_credentials'));
    expect(queue.messages).toEqual([{ notice: { id: expect.any(String), kind: 'child_locked' } }]);
    const noticeId = queue.messages[0]?.notice.id as string;
    const notice = await findNoticeById(f.db, noticeId);
    expect(notice).toMatchObject({ recipientUserId: parent.user.id, subjectUserId: childId, enqueuedAt: expect.any(String) });
    expect(f.h.auditRows().filter((row) => row.eventType === 'authn_login_lock' && row.subjectUserId === childId)).toHaveLength(1);
    expect(lines('child account locked')).toEqual([expect.objectContaining({ level: 'warn', noticeId, consecutiveFailures: 10 })]);
    expect(lines('account notice enqueued')).toEqual([expect.objectContaining({ noticeId, kind: 'child_locked' })]);
  });

  it('answers the same when the queue is down, and the catch-up enqueues the owed notice a minute later', async () => {
    const { answers } = await lockedChild({ queue: 'down' });
    expect(answers.at(-1)).toBe('invalid_credentials');
    const [owedLine] = lines('account notice owed: the queue took no message');
    expect(owedLine).toMatchObject({ level: 'warn', errorCode: 'notice_enqueue_failed' });
    const noticeId = String(owedLine?.noticeId);
    expect((await findNoticeById(f.db, noticeId))?.enqueuedAt).toBeNull();
    const queue = inMemoryNoticeQueue();
    expect(await enqueueOwedNotices({ ...f.h.services, noticeQueue: queue })).toBe(0);
    f.h.clock.advance(MINUTE);
    expect(await enqueueOwedNotices({ ...f.h.services, noticeQueue: queue })).toBe(1);
    expect(queue.messages).toEqual([{ notice: { id: noticeId, kind: 'child_locked' } }]);
    expect((await findNoticeById(f.db, noticeId))?.enqueuedAt).not.toBeNull();
  });
});

describe('the delivery', () => {
  it("pushes to every device of the parent and e-mails them the child's name and what to do, once", async () => {
    const { childId, username, queue } = await lockedChild();
    const message = queue.messages[0] as NoticeMessage;
    // A safety notice: sent even though the parent turned push and e-mail off for announcements.
    await f.db.transaction((tx) => updatePreferences(tx, parent.user.id, { push: false, email: false }, f.h.clock.now().toISOString()));
    const result = await f.handle(message);
    expect(result).toEqual({ kind: 'notice', noticeId: message.notice.id, channels: { push: 'success', email: 'accepted' } });
    expect(f.providers.calls.push).toHaveLength(1);
    expect(f.providers.calls.push[0]?.map((m) => m.to).sort()).toEqual([...parent.tokens].sort());
    expect(f.providers.calls.push[0]?.[0]).toMatchObject({
      title: `${username}'s account is locked`,
      body: expect.stringContaining('set a new PIN'),
      data: { notice: 'child_locked', childId },
    });
    expect(f.providers.calls.email).toEqual([
      expect.objectContaining({ to: parent.email, subject: `${username}'s account is locked`, text: expect.stringContaining(`set a new PIN for ${username}`) }),
    ]);
    expect(await listNoticeDeliveries(f.db, message.notice.id)).toMatchObject([
      { channel: 'email', result: 'accepted', attempts: 1 },
      { channel: 'push', result: 'success', attempts: 1 },
    ]);
    // Delivered again (the queue's at-least-once): nothing is sent twice.
    expect(await f.handle(message)).toEqual({ kind: 'notice', noticeId: message.notice.id, channels: { push: 'done', email: 'done' } });
    expect(f.providers.calls.push).toHaveLength(1);
    expect(f.providers.calls.email).toHaveLength(1);
    expect(lines('account notice delivered')).toHaveLength(2);
    expect(lines('account notice delivery').every((l) => l.recipientUserId === parent.user.id && typeof l.channel === 'string')).toBe(true);
  });

  it('retries only the channel a transient error left owed, and marks it failed on the last try', async () => {
    const { queue } = await lockedChild();
    const message = queue.messages[0] as NoticeMessage;
    f.providers.script(parent.email as string, transient500);
    const error = await f.handle(message).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(FanoutError);
    expect((error as FanoutError).errorCode).toBe('delivery_incomplete');
    expect(await listNoticeDeliveries(f.db, message.notice.id)).toMatchObject([
      { channel: 'email', result: 'pending', claimedUntil: null, providerCode: 'http_500' },
      { channel: 'push', result: 'success' },
    ]);
    const last = await handleFanoutMessage(message, f.deps, { lastAttempt: true }).then(() => undefined, (e: unknown) => e);
    expect(last).toBeInstanceOf(FanoutError);
    expect(f.providers.calls.push).toHaveLength(1);
    expect(await listNoticeDeliveries(f.db, message.notice.id)).toMatchObject([
      { channel: 'email', result: 'failed', providerCode: 'poisoned' },
      { channel: 'push', result: 'success' },
    ]);
    expect(lines('account notice poisoned')).toEqual([expect.objectContaining({ noticeId: message.notice.id, deliveriesFailed: 1 })]);
  });

  it('sends nothing when a new PIN lifted the lock before the notice went out', async () => {
    const { childId, queue } = await lockedChild();
    await setChildSecret(f.db, childId, { hash: await f.h.hasher.hash('9264017'), kind: 'pin' }, f.h.clock.now().toISOString());
    const result = await f.handle(queue.messages[0] as NoticeMessage);
    expect(result).toMatchObject({ kind: 'notice', channels: {}, skipped: 'no_longer_locked' });
    expect(f.providers.calls.push).toHaveLength(0);
    expect(f.providers.calls.email).toHaveLength(0);
  });

  it('refuses a malformed notice message and an unknown notice by throwing', async () => {
    const cases: [unknown, string][] = [
      [{ notice: { id: 'nope', kind: 'child_locked' } }, 'invalid_fanout_message'],
      [{ notice: { id: '6f1c2d3e-4b5a-4c6d-8e7f-8091a2b3c4d5', kind: 'other' } }, 'invalid_fanout_message'],
      [JSON.stringify({ notice: { id: '6f1c2d3e-4b5a-4c6d-8e7f-8091a2b3c4d5', kind: 'child_locked' } }), 'notice_not_found'],
    ];
    for (const [message, code] of cases) {
      const error = await f.handle(message).then(() => undefined, (e: unknown) => e);
      expect((error as FanoutError).errorCode).toBe(code);
    }
  });
});
