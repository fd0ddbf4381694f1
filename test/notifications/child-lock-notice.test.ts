import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signInChild } from '../../shared/auth/sign-in-child';
import { setChildSecret } from '../../shared/children/child-account-store';
import { FanoutError } from '../../shared/notifications/engine/fanout-error';
import { inMemoryFanoutQueue } from '../../shared/messages/fanout-queue';
import { handleFanoutMessage } from '../../shared/notifications/jobs/handle-fanout-message';
import { NOTICE_GIVE_UP_MS } from '../../shared/notifications/jobs/handle-notice-message';
import type { PoisonQueue } from '../../shared/notifications/jobs/poison-queue';
import { redrivePoison, type RedriveEntry } from '../../shared/notifications/jobs/redrive-poison';
import { findNoticeById } from '../../shared/messages/account-notice-store';
import { listNoticeDeliveries } from '../../shared/notifications/ledger/notice-deliveries';
import { repeatabilityRequestId } from '../../shared/notifications/ledger/send-repeatability';
import { enqueueOwedNotices } from '../../shared/messages/account-notices';
import type { NoticeMessage } from '../../shared/messages/notice-message';
import { inMemoryNoticeQueue } from '../../shared/messages/notice-queue';
import { updatePreferences } from '../../shared/users/notification-preferences';
import type { User } from '../../shared/users/user';
import { MINUTE } from '../auth/flows/flow-harness';
import { createFanoutHarness, expectNoFanoutLeaks, type FanoutHarness, type TestRecipient } from './fanout-harness';
import { ADAPTER_TRIES, transient500 } from './notification-fixtures';

/** A poison queue in memory: `m<n>` ids, released messages stay, deleted ones go. */
function memoryPoisonQueue(initial: string[]): PoisonQueue & { texts(): string[] } {
  const messages = initial.map((text, index) => ({ messageId: `m${index}`, popReceipt: 'r', text, insertedOn: undefined }));
  let hidden = new Set<string>();
  return {
    texts: () => messages.map((message) => message.text),
    async receive(count) {
      const visible = messages.filter((message) => !hidden.has(message.messageId)).slice(0, count);
      for (const message of visible) hidden.add(message.messageId);
      return visible;
    },
    async delete(message) {
      messages.splice(messages.findIndex((m) => m.messageId === message.messageId), 1);
      hidden.delete(message.messageId);
    },
    async release(message) {
      hidden = new Set([...hidden].filter((id) => id !== message.messageId));
    },
  };
}

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
  const deps = options.queue === 'down' ? f.h.services.childAccountPorts : { ...f.h.services.childAccountPorts, noticeQueue: queue };
  const answers: string[] = [];
  for (let n = 0; n < 10; n += 1) {
    // Past the longest wait of the throttle, so every guess is evaluated.
    if (n > 0) f.h.clock.advance(16 * MINUTE);
    const wrong = String(6_100_000 + n);
    f.h.canaries.add(wrong);
    const result = await signInChild({ username, secret: wrong, clientAddress: `198.51.100.${n + 1}` }, deps);
    answers.push(result.ok ? 'ok' : result.problem.code);
  }
  // The locking attempt answered without waiting for its notice's enqueue: wait for it here.
  expect(await f.h.services.shutdown.drained(5000)).toBe(true);
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

  it('answers without waiting for the enqueue, which the shutdown waits for; the notice is marked once it is on the queue', async () => {
    // A queue that takes its message only when the test lets it.
    let release: () => void = () => undefined;
    const taken: NoticeMessage[] = [];
    const slow = {
      messages: taken,
      enqueue: (message: NoticeMessage) =>
        new Promise<void>((resolve) => {
          release = () => {
            taken.push(message);
            resolve();
          };
        }),
    };
    counter += 1;
    const username = `quokka.slow${counter}`;
    const child = await f.h.createChild(parent.user as User, username, PIN);
    const deps = { ...f.h.services.childAccountPorts, noticeQueue: slow };
    for (let n = 0; n < 10; n += 1) {
      if (n > 0) f.h.clock.advance(16 * MINUTE);
      const wrong = String(6_200_000 + n);
      f.h.canaries.add(wrong);
      const result = await signInChild({ username, secret: wrong, clientAddress: `198.51.100.${n + 1}` }, deps);
      expect(result).toMatchObject({ ok: false, problem: { code: 'invalid_credentials' } });
    }
    // The tenth answered while its enqueue is still under way, and the shutdown's drain waits for it.
    const [locked] = lines('child account locked');
    const noticeId = String(locked?.noticeId);
    expect(locked).toMatchObject({ level: 'warn' });
    expect((await findNoticeById(f.db, noticeId))?.enqueuedAt).toBeNull();
    expect(await f.h.services.shutdown.drained(50)).toBe(false);
    release();
    expect(await f.h.services.shutdown.drained(5000)).toBe(true);
    expect(taken).toEqual([{ notice: { id: noticeId, kind: 'child_locked' } }]);
    expect((await findNoticeById(f.db, noticeId))?.enqueuedAt).not.toBeNull();
    expect((await findNoticeById(f.db, noticeId))?.subjectUserId).toBe(child.id);
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
    // The engine's lines, naming the notice (never the child's name, an address or a token).
    const attempts = lines('delivery attempt').sort((a, b) => String(a.channel).localeCompare(String(b.channel)));
    expect(attempts).toEqual([
      expect.objectContaining({ level: 'info', noticeId: message.notice.id, recipientUserId: parent.user.id, channel: 'email', result: 'accepted' }),
      expect.objectContaining({ level: 'info', noticeId: message.notice.id, recipientUserId: parent.user.id, channel: 'push', result: 'success' }),
    ]);
    expect(attempts.some((line) => 'announcementId' in line)).toBe(false);
    // The e-mail went as a repeatable request: the row's own id and the first-sent time its row recorded.
    const [row] = await listNoticeDeliveries(f.db, message.notice.id);
    expect(row?.firstSentAt).toEqual(expect.any(String));
    expect(f.providers.calls.email[0]?.repeatability).toEqual({
      requestId: repeatabilityRequestId({ announcementId: message.notice.id, userId: parent.user.id, channel: 'email' }),
      firstSent: new Date(String(row?.firstSentAt)),
    });
  });

  it('retries only the channel a transient error left owed; after the last try the notice is owed again and the catch-up sends it', async () => {
    const { queue } = await lockedChild();
    const message = queue.messages[0] as NoticeMessage;
    const noticeId = message.notice.id;
    f.providers.script(parent.email as string, transient500);
    const error = await f.handle(message).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(FanoutError);
    expect((error as FanoutError).errorCode).toBe('delivery_incomplete');
    expect(await listNoticeDeliveries(f.db, noticeId)).toMatchObject([
      // Given back: its lease ended when the try gave up on it, so the next try claims it at once.
      { channel: 'email', result: 'pending', claimedUntil: f.h.clock.now().toISOString(), providerCode: 'http_500' },
      { channel: 'push', result: 'success' },
    ]);
    // The fifth try, a minute after the lock: the message ends, the notice is back in the outbox.
    f.h.clock.advance(MINUTE);
    const last = await handleFanoutMessage(message, f.deps, { lastAttempt: true });
    expect(last).toEqual({ kind: 'notice', noticeId, channels: {}, owedAgain: true });
    expect(f.providers.calls.push).toHaveLength(1);
    expect(await listNoticeDeliveries(f.db, noticeId)).toMatchObject([
      { channel: 'email', result: 'pending', providerCode: 'http_500' },
      { channel: 'push', result: 'success' },
    ]);
    expect((await findNoticeById(f.db, noticeId))?.enqueuedAt).toBeNull();
    expect(lines('account notice still owed after its last try: the catch-up enqueues it again')).toEqual([
      expect.objectContaining({ level: 'warn', noticeId, errorCode: 'delivery_incomplete', ageMinutes: 1 }),
    ]);
    expect(lines('account notice poisoned')).toEqual([]);
    // The queue-depth timer's catch-up enqueues it again; the provider is back: only the e-mail is sent.
    const again = inMemoryNoticeQueue();
    expect(await enqueueOwedNotices({ ...f.h.services, noticeQueue: again })).toBe(1);
    expect(again.messages).toEqual([message]);
    f.providers.script(parent.email as string, { result: 'accepted', providerMessageId: 'op-back' });
    expect(await f.handle(again.messages[0])).toEqual({ kind: 'notice', noticeId, channels: { push: 'done', email: 'accepted' } });
    expect(f.providers.calls.push).toHaveLength(1);
    expect(await listNoticeDeliveries(f.db, noticeId)).toMatchObject([
      { channel: 'email', result: 'accepted' },
      { channel: 'push', result: 'success' },
    ]);
  });

  it('gives a notice up a day after the lock: owed rows failed / poisoned, an error line, and the re-drive sends it again', async () => {
    const { queue } = await lockedChild();
    const message = queue.messages[0] as NoticeMessage;
    const noticeId = message.notice.id;
    f.providers.script(parent.email as string, transient500);
    await f.handle(message).catch(() => undefined);
    f.h.clock.advance(NOTICE_GIVE_UP_MS);
    const last = await handleFanoutMessage(message, f.deps, { lastAttempt: true }).then(() => undefined, (e: unknown) => e);
    expect(last).toBeInstanceOf(FanoutError);
    expect(await listNoticeDeliveries(f.db, noticeId)).toMatchObject([
      { channel: 'email', result: 'failed', providerCode: 'poisoned' },
      { channel: 'push', result: 'success' },
    ]);
    expect(lines('account notice poisoned')).toEqual([
      expect.objectContaining({ level: 'error', noticeId, deliveriesFailed: 1, errorCode: 'notice_poisoned', failureCode: 'delivery_incomplete' }),
    ]);
    expect(await enqueueOwedNotices({ ...f.h.services, noticeQueue: inMemoryNoticeQueue() })).toBe(0);

    // The host moved it to the poison queue; once the provider is back, `npm run redrive-poison` sends it again.
    const poison = memoryPoisonQueue([Buffer.from(JSON.stringify(message)).toString('base64'), 'not a message']);
    const redriveDeps = { database: f.db, poisonQueue: poison, fanoutQueue: inMemoryFanoutQueue(), noticeQueue: inMemoryNoticeQueue(), clock: f.h.clock };
    const dry: RedriveEntry[] = [];
    const drySummary = await redrivePoison(redriveDeps, { dryRun: true }, (entry) => dry.push(entry));
    expect(dry).toEqual([
      { messageId: 'm0', poisonedAt: null, kind: 'notice', noticeId, action: 'would_redrive', notYetDelivered: 1, pending: 0, poisoned: 1 },
      { messageId: 'm1', poisonedAt: null, action: 'skipped', reason: 'invalid_fanout_message' },
    ]);
    expect(drySummary).toEqual({ dryRun: true, messages: 2, redriven: 1, skipped: 1, notYetDelivered: 1, reset: 0 });
    // --announcement leaves notices alone.
    expect((await redrivePoison(redriveDeps, { dryRun: false, announcementId: noticeId }, () => undefined)).messages).toBe(0);
    expect(poison.texts()).toHaveLength(2);

    const run: RedriveEntry[] = [];
    await redrivePoison(redriveDeps, { dryRun: false }, (entry) => run.push(entry));
    expect(run[0]).toMatchObject({ kind: 'notice', noticeId, action: 'redriven', reset: 1 });
    expect(redriveDeps.noticeQueue.messages).toEqual([message]);
    expect(redriveDeps.fanoutQueue.messages).toEqual([]);
    expect(poison.texts()).toEqual(['not a message']);
    expect(await listNoticeDeliveries(f.db, noticeId)).toMatchObject([{ channel: 'email', result: 'pending', providerCode: null }, { channel: 'push' }]);
    f.providers.script(parent.email as string, { result: 'accepted', providerMessageId: 'op-redriven' });
    expect(await f.handle(redriveDeps.noticeQueue.messages[0])).toEqual({ kind: 'notice', noticeId, channels: { push: 'done', email: 'accepted' } });
    expect(f.providers.calls.email.filter((sent) => sent.to === parent.email)).toHaveLength(2 * ADAPTER_TRIES + 1);
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
