import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deliveriesOf } from '../../shared/notifications/ledger/delivery-ledger';
import { FanoutError } from '../../shared/notifications/engine/fanout-error';
import { runFanoutInProcess } from '../helpers/run-fanout';
import { createFanoutHarness, expectNoFanoutLeaks, type FanoutHarness } from './fanout-harness';
import { transient500 } from './notification-fixtures';
import { applyCommunicationEvent } from '../../shared/notifications/jobs/apply-communication-event';
import { smsSegments } from '../../shared/notifications/channels/sms-segments';
import { smsReceived } from '../helpers/fake-providers/acs-events';

/**
 * The fan-out use case in process: splitting, batch delivery, the ledger against redelivery,
 * retries, stale tokens, opt-outs, hard bounces, the spend guard, children, malformed messages,
 * and no address, number, token or text anywhere in the log or telemetry.
 */
let f: FanoutHarness;

beforeEach(async () => {
  f = await createFanoutHarness();
});

afterEach(async () => {
  expectNoFanoutLeaks(f);
  await f.close();
});

const lines = (message: string) => f.h.sink.withMessage(message);

describe('the first message', () => {
  it('logs fan-out initiated, sends notification.fanout and splits the audience into batch messages', async () => {
    const recipients = [];
    for (let n = 0; n < 7; n += 1) recipients.push(await f.recipient());
    const announcement = await f.announcement(['push', 'email']);
    const result = await f.handle({ announcementId: announcement.id });
    expect(result).toEqual({ kind: 'split', recipients: 7, batches: 3 });
    const ids = recipients.map((r) => r.user.id);
    expect(f.queue.messages).toEqual([
      { announcementId: announcement.id, batch: { afterUserId: '', throughUserId: ids[2], size: 3 } },
      { announcementId: announcement.id, batch: { afterUserId: ids[2], throughUserId: ids[5], size: 3 } },
      { announcementId: announcement.id, batch: { afterUserId: ids[5], throughUserId: ids[6], size: 1 } },
    ]);
    expect(lines('fan-out initiated')).toEqual([
      expect.objectContaining({ level: 'info', service: 'notifications', announcementId: announcement.id, recipients: 7, channels: ['push', 'email'], userId: null }),
    ]);
    expect(f.h.telemetry.itemsOf('event', 'notification.fanout').map((item) => item.properties)).toEqual([
      { announcementId: announcement.id, recipients: 7, channels: 'push,email' },
    ]);
    expect(f.providers.calls.email).toHaveLength(0);
  });

  it('refuses a malformed message, an unknown and an unpublished announcement by throwing (the queue retries, then poisons)', async () => {
    const draft = await f.announcement(['email'], 'approved');
    const cases: [unknown, string][] = [
      ['not json at all', 'invalid_fanout_message'],
      [{ announcementId: 'nope' }, 'invalid_fanout_message'],
      [{ announcementId: draft.id, extra: true }, 'invalid_fanout_message'],
      [{ announcementId: draft.id, batch: { afterUserId: '', size: 0 } }, 'invalid_fanout_message'],
      [{ announcementId: '6f1c2d3e-4b5a-4c6d-8e7f-8091a2b3c4d5' }, 'announcement_not_found'],
      [{ announcementId: draft.id }, 'announcement_not_published'],
    ];
    for (const [message, code] of cases) {
      const error = await f.handle(message).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(FanoutError);
      expect((error as FanoutError).errorCode).toBe(code);
    }
    expect(f.queue.messages).toEqual([]);
  });
});

describe('a batch message', () => {
  it('covers its id range, so a user joining the audience inside it after the split pushes nobody out', async () => {
    const originals = [];
    for (let n = 0; n < 6; n += 1) originals.push(await f.recipient({ email: true }));
    const announcement = await f.announcement(['email']);
    await f.handle({ announcementId: announcement.id });
    const batches = [...f.queue.messages];
    expect(batches).toHaveLength(2);
    // An id lower than every other sorts into the first batch's range after the split.
    const newcomer = await f.h.insertAdult({ id: '00000000-0000-4000-8000-000000000000', email: 'late.joiner@canary-mail.test' });
    f.h.canaries.add('late.joiner@canary-mail.test');
    for (const message of batches) await f.handle(message);
    const delivered = new Set((await deliveriesOf(f.db, announcement.id)).map((row) => row.userId));
    for (const recipient of originals) expect(delivered.has(recipient.user.id)).toBe(true);
    expect(delivered.has(newcomer.id)).toBe(true);
  });

  it('delivers each recipient on each channel once and records one ledger row per recipient × channel', async () => {
    const everyone = [await f.recipient(), await f.recipient({ email: true }), await f.recipient({ phone: true, devices: 2 })];
    const announcement = await f.announcement();
    expect(await f.fanOut(announcement.id)).toEqual([]);

    const rows = await deliveriesOf(f.db, announcement.id);
    expect(rows.map((row) => `${row.userId}/${row.channel}/${row.result}`).sort()).toEqual(
      [
        `${everyone[0]?.user.id}/email/accepted`,
        `${everyone[0]?.user.id}/push/success`,
        `${everyone[0]?.user.id}/sms/accepted`,
        `${everyone[1]?.user.id}/email/accepted`,
        `${everyone[2]?.user.id}/push/success`,
        `${everyone[2]?.user.id}/sms/accepted`,
      ].sort(),
    );
    expect(f.providers.accepted.push.map((m) => m.to).sort()).toEqual([...(everyone[0]?.tokens ?? []), ...(everyone[2]?.tokens ?? [])].sort());
    expect(f.providers.accepted.push[0]).toMatchObject({ title: announcement.title, body: announcement.body, data: { announcementId: announcement.id } });
    expect(f.providers.accepted.email[0]).toMatchObject({ subject: announcement.title, text: announcement.body, announcementId: announcement.id });
    expect(f.providers.accepted.sms[0]?.text).toBe(`${announcement.title}\n${announcement.body}`);
    const attempts = lines('delivery attempt');
    expect(attempts).toHaveLength(6);
    expect(attempts.every((line) => line.level === 'info' && ['success', 'accepted'].includes(String(line.result)) && line.announcementId === announcement.id)).toBe(true);
    // One event per SMS and e-mail, and one per push device (three devices).
    expect(f.h.telemetry.itemsOf('event', 'notification.delivery')).toHaveLength(7);
    expect(lines('fan-out batch delivered')[0]).toMatchObject({ recipients: 3, pushResults: { success: 2 }, smsResults: { accepted: 2 }, emailResults: { accepted: 2 } });
  });

  it('sends nothing twice when the same messages are delivered again', async () => {
    await f.recipient();
    await f.recipient();
    const announcement = await f.announcement();
    await f.fanOut(announcement.id);
    const sent = { push: f.providers.calls.push.length, sms: f.providers.calls.sms.length, email: f.providers.calls.email.length };
    for (const message of [...f.queue.messages]) await f.handle(message);
    await f.fanOut(announcement.id);
    expect({ push: f.providers.calls.push.length, sms: f.providers.calls.sms.length, email: f.providers.calls.email.length }).toEqual(sent);
    expect((await deliveriesOf(f.db, announcement.id)).every((row) => ['success', 'accepted'].includes(row.result) && row.attempts === 1)).toBe(true);
  });

  it('logs a warn line per retry the provider makes inside its send, and records the send once', async () => {
    const reader = await f.recipient({ email: true });
    f.providers.script(reader.email as string, transient500, { result: 'accepted', providerMessageId: 'after-retry' });
    const announcement = await f.announcement(['email']);
    expect(await f.fanOut(announcement.id)).toEqual([]);
    expect(f.providers.calls.email).toHaveLength(2);
    expect(f.providers.accepted.email).toHaveLength(1);
    expect(f.sleep.waits).toEqual([]);
    expect(lines('delivery attempt failed; retrying')).toEqual([
      expect.objectContaining({ level: 'warn', channel: 'email', providerCode: 'http_500', failedTries: 1 }),
    ]);
    expect(lines('delivery attempt')).toEqual([expect.objectContaining({ level: 'info', result: 'accepted', tries: 2 })]);
    expect(await deliveriesOf(f.db, announcement.id)).toEqual([
      expect.objectContaining({ result: 'accepted', providerMessageId: 'after-retry', attempts: 1 }),
    ]);
  });

  it('leaves a delivery that keeps failing to the redelivered message, which then sends it once', async () => {
    const reader = await f.recipient({ phone: true });
    f.providers.script(reader.phone as string, transient500, transient500, transient500, { result: 'accepted' });
    const announcement = await f.announcement(['sms']);
    const [error] = await f.fanOut(announcement.id);
    expect((error as FanoutError).errorCode).toBe('delivery_incomplete');
    expect(lines('delivery attempt failed; retrying')).toHaveLength(2);
    expect(await deliveriesOf(f.db, announcement.id)).toEqual([expect.objectContaining({ result: 'pending', attempts: 1, providerCode: 'http_500' })]);
    expect(lines('delivery attempt')).toEqual([
      expect.objectContaining({ level: 'error', result: 'provider_error', providerCode: 'http_500', transient: true, errorCode: 'provider_error', stack: expect.any(String) }),
    ]);
    expect(f.h.telemetry.itemsOf('exception')).toHaveLength(1);

    await f.handle(f.queue.messages.at(-1));
    expect(f.providers.calls.sms).toHaveLength(4);
    expect(f.providers.accepted.sms).toHaveLength(1);
    expect(await deliveriesOf(f.db, announcement.id)).toEqual([expect.objectContaining({ result: 'accepted', attempts: 2 })]);
    // The spend reserved for the failed send was given back: one message is counted.
    expect(f.h.rows('SELECT messages FROM SmsMonthlySpend')).toEqual([{ messages: 1 }]);
  });

  it('fails the batch when an answer recorded after the next sends cannot be written, the row still owed', async () => {
    const reader = await f.recipient({ email: true });
    f.providers.script(reader.email as string, transient500);
    const announcement = await f.announcement(['email']);
    const execute = f.db.execute.bind(f.db);
    let failed = 0;
    f.db.execute = ((sql, params) => {
      if (failed === 0 && sql.includes('SET claimedUntil = @now, providerCode = COALESCE(@providerCode')) {
        failed += 1;
        return Promise.reject(new Error('the database went away mid-release'));
      }
      return execute(sql, params);
    }) as typeof f.db.execute;
    const [error] = await f.fanOut(announcement.id);
    expect((error as Error).message).toBe('the database went away mid-release');
    expect(failed).toBe(1);
    // Given back by the failing batch all the same: the redelivery claims it at once and sends it.
    expect(await deliveriesOf(f.db, announcement.id)).toEqual([expect.objectContaining({ result: 'pending', attempts: 1 })]);
    f.providers.script(reader.email as string, { result: 'accepted', providerMessageId: 'op-back' });
    await f.handle(f.queue.messages.at(-1));
    expect(await deliveriesOf(f.db, announcement.id)).toEqual([expect.objectContaining({ result: 'accepted', attempts: 2 })]);
  });

  it('records a permanent provider error once, at error level with the provider code, without retrying', async () => {
    const reader = await f.recipient({ phone: true });
    f.providers.script(reader.phone as string, { result: 'provider_error', code: 'http_400', transient: false });
    const announcement = await f.announcement(['sms']);
    expect(await f.fanOut(announcement.id)).toEqual([]);
    expect(f.sleep.waits).toEqual([]);
    expect(await deliveriesOf(f.db, announcement.id)).toEqual([expect.objectContaining({ result: 'provider_error', providerCode: 'http_400' })]);
    expect(lines('delivery attempt')[0]).toMatchObject({ level: 'error', errorCode: 'provider_error', providerCode: 'http_400', transient: false });
    expect(f.h.telemetry.itemsOf('event', 'notification.delivery').map((i) => i.properties)).toEqual([{ channel: 'sms', result: 'provider_error' }]);
  });
});

describe('push', () => {
  it('sends in requests of at most 100 messages', async () => {
    for (let n = 0; n < 3; n += 1) await f.recipient({ devices: 10 });
    const many = await createFanoutHarness({ FANOUT_BATCH_SIZE: '500' });
    try {
      for (let n = 0; n < 16; n += 1) await many.recipient({ devices: 10 });
      const announcement = await many.announcement(['push']);
      expect(await many.fanOut(announcement.id)).toEqual([]);
      expect(many.providers.calls.push.map((batch) => batch.length)).toEqual([100, 60]);
      expect((await deliveriesOf(many.db, announcement.id)).filter((row) => row.result === 'success')).toHaveLength(16);
      expectNoFanoutLeaks(many);
    } finally {
      await many.close();
    }
  });

  it('retries only the messages of a push request that failed transiently', async () => {
    const flaky = await f.recipient({ devices: 1 });
    const steady = await f.recipient({ devices: 1 });
    f.providers.script(flaky.tokens[0] as string, transient500, { result: 'success', providerMessageId: 'late' });
    const announcement = await f.announcement(['push']);
    expect(await f.fanOut(announcement.id)).toEqual([]);
    expect(f.providers.calls.push.map((batch) => batch.map((m) => m.to))).toEqual([[flaky.tokens[0], steady.tokens[0]], [flaky.tokens[0]]]);
    expect(f.sleep.waits).toEqual([200]);
    expect((await deliveriesOf(f.db, announcement.id)).map((row) => row.result)).toEqual(['success', 'success']);
  });

  it('records a push answer ahead of the writes already waiting for the connection', async () => {
    await f.recipient({ devices: 1, phone: true, email: true });
    const announcement = await f.announcement(['push', 'sms', 'email']);
    const transactions = vi.spyOn(f.db, 'transaction');
    expect(await f.fanOut(announcement.id)).toEqual([]);
    // The push answer's transaction (tickets and results) is the one asked to go first.
    const first = transactions.mock.calls.filter(([, options]) => options?.first === true);
    expect(first).toHaveLength(1);
    expect(transactions.mock.calls.length).toBeGreaterThan(first.length);
    transactions.mockRestore();
  });

  it('removes a stale token with a warn line, delivering to the user’s other device', async () => {
    const reader = await f.recipient({ devices: 2 });
    const lonely = await f.recipient({ devices: 1 });
    const [stale, live] = reader.tokens as [string, string];
    f.providers.script(stale, { result: 'stale_token', code: 'DeviceNotRegistered' });
    f.providers.script(lonely.tokens[0] as string, { result: 'stale_token', code: 'DeviceNotRegistered' });
    const announcement = await f.announcement(['push']);
    expect(await f.fanOut(announcement.id)).toEqual([]);

    const remaining = f.h.rows<{ token: string }>('SELECT token FROM PushTokens ORDER BY token').map((row) => row.token);
    expect(remaining).toEqual([live]);
    expect(lines('stale push token removed')).toEqual([
      expect.objectContaining({ level: 'warn', recipientUserId: reader.user.id, providerCode: 'DeviceNotRegistered' }),
      expect.objectContaining({ level: 'warn', recipientUserId: lonely.user.id }),
    ]);
    const rows = await deliveriesOf(f.db, announcement.id);
    expect(rows.find((row) => row.userId === reader.user.id)?.result).toBe('success');
    expect(rows.find((row) => row.userId === lonely.user.id)).toMatchObject({ result: 'stale_token', providerCode: 'DeviceNotRegistered' });
    // Push events count devices: each removed token is one stale_token (the token-removal alert counts them).
    const events = f.h.telemetry.itemsOf('event', 'notification.delivery').map((item) => item.properties.result);
    expect(events.sort()).toEqual(['stale_token', 'stale_token', 'success']);
  });

  it('reaches children with the announcements section open, and no others', async () => {
    const parent = await f.recipient({ email: true });
    const reader = await f.child(parent.user, ['announcements']);
    await f.child(parent.user, ['events']);
    const announcement = await f.announcement();
    await f.fanOut(announcement.id);
    expect(f.providers.accepted.push.map((m) => m.to)).toEqual(reader.tokens);
    expect((await deliveriesOf(f.db, announcement.id)).map((row) => `${row.userId}/${row.channel}`).sort()).toEqual(
      [`${parent.user.id}/email`, `${reader.user.id}/push`].sort(),
    );
  });
});

describe('SMS', () => {
  it('suppresses an opted-out recipient: logged, recorded as opted_out, not sent', async () => {
    const reader = await f.recipient({ phone: true });
    await f.db.transaction((tx) =>
      tx.execute("INSERT INTO NotificationPreferences (userId, push, sms, email, updatedAt) VALUES (@id, 1, 0, 1, '2031-01-01T00:00:00.000Z')", {
        id: reader.user.id,
      }),
    );
    const announcement = await f.announcement(['sms']);
    await f.fanOut(announcement.id);
    expect(f.providers.calls.sms).toEqual([]);
    expect(await deliveriesOf(f.db, announcement.id)).toEqual([expect.objectContaining({ result: 'opted_out', providerCode: 'user_choice' })]);
    expect(lines('sms suppressed: recipient opted out')).toEqual([
      expect.objectContaining({ level: 'info', recipientUserId: reader.user.id, result: 'opted_out', reason: 'user_choice' }),
    ]);
    expect(f.h.telemetry.itemsOf('event', 'notification.delivery').map((i) => i.properties)).toEqual([{ channel: 'sms', result: 'opted_out' }]);
  });

  it('applies a STOP reply before the next SMS, START takes it back; the SMS is priced by its segments', async () => {
    const reader = await f.recipient({ phone: true });
    const stop = smsReceived(reader.phone as string, '+18005550100', ' stop ', f.h.clock.now());
    expect(await applyCommunicationEvent(stop, f.deps)).toMatchObject({ outcome: 'applied', result: 'sms_stop' });
    const first = await f.announcement(['sms']);
    await f.fanOut(first.id);
    expect(f.providers.calls.sms).toHaveLength(0);
    expect(await deliveriesOf(f.db, first.id)).toEqual([expect.objectContaining({ result: 'opted_out', providerCode: 'provider_stop' })]);
    expect(lines('sms suppressed: recipient opted out')).toEqual([expect.objectContaining({ reason: 'provider_stop' })]);

    f.h.clock.advance(60_000);
    await applyCommunicationEvent(smsReceived(reader.phone as string, '+18005550100', 'START', f.h.clock.now()), f.deps);
    const second = await f.announcement(['sms']);
    await f.fanOut(second.id);
    expect(f.providers.calls.sms).toHaveLength(1);
    expect(f.providers.calls.sms[0]?.tag).toBe(`${second.id}/${reader.user.id}`);
    const { segments } = smsSegments(f.providers.calls.sms[0]?.text ?? '');
    expect(f.h.rows('SELECT spentMicroUsd, messages FROM SmsMonthlySpend')).toEqual([{ spentMicroUsd: segments * 7500, messages: 1 }]);
  });

  it('warns once at 80 % of the monthly cap and records budget_exceeded past it', async () => {
    const capped = await createFanoutHarness({ SMS_MONTHLY_CAP_USD: '0.05', SMS_UNIT_COST_USD: '0.01', FANOUT_BATCH_SIZE: '10' });
    try {
      for (let n = 0; n < 7; n += 1) await capped.recipient({ phone: true });
      const announcement = await capped.announcement(['sms']);
      capped.deps.concurrency = 1;
      expect(await capped.fanOut(announcement.id)).toEqual([]);
      expect(capped.providers.accepted.sms).toHaveLength(5);
      const results = (await deliveriesOf(capped.db, announcement.id)).map((row) => row.result);
      expect(results.filter((r) => r === 'accepted')).toHaveLength(5);
      expect(results.filter((r) => r === 'budget_exceeded')).toHaveLength(2);
      expect(capped.h.sink.withMessage('sms spend reached 80% of the monthly cap')).toEqual([
        expect.objectContaining({ level: 'warn', month: '2031-03', spentUsd: 0.04, capUsd: 0.05 }),
      ]);
      expect(capped.h.sink.withMessage('sms monthly spend cap reached; messages that would cross it are not sent')).toHaveLength(1);
      expect(capped.h.sink.withMessage('sms suppressed: monthly spend cap reached')).toHaveLength(2);

      capped.h.clock.set('2031-04-01T00:00:00.000Z');
      const april = await capped.announcement(['sms']);
      await capped.fanOut(april.id);
      expect(capped.providers.accepted.sms).toHaveLength(10);
      expectNoFanoutLeaks(capped);
    } finally {
      await capped.close();
    }
  });

  it('sends nothing whose first-sent mark failed, gives its spend back, and leaves it owed to the redelivery', async () => {
    const reader = await f.recipient({ phone: true });
    const announcement = await f.announcement(['sms']);
    const query = f.db.query.bind(f.db);
    let failed = 0;
    f.db.query = ((sql, params) => {
      if (failed === 0 && sql.includes('SET firstSentAt = COALESCE(firstSentAt')) {
        failed += 1;
        return Promise.reject(new Error('the database went away mid-mark'));
      }
      return query(sql, params);
    }) as typeof f.db.query;
    const [error] = await f.fanOut(announcement.id);
    expect(error).toBeInstanceOf(Error);
    expect(failed).toBe(1);
    expect(f.providers.calls.sms).toEqual([]);
    // Reserved before the mark, given back when the mark failed: nothing was spent.
    expect(f.h.rows('SELECT spentMicroUsd, messages FROM SmsMonthlySpend')).toEqual([{ spentMicroUsd: 0, messages: 0 }]);
    expect(await deliveriesOf(f.db, announcement.id)).toEqual([expect.objectContaining({ userId: reader.user.id, result: 'pending' })]);

    await f.handle(f.queue.messages.at(-1));
    expect(f.providers.calls.sms).toHaveLength(1);
    const { segments } = smsSegments(f.providers.calls.sms[0]?.text ?? '');
    expect(f.h.rows('SELECT spentMicroUsd, messages FROM SmsMonthlySpend')).toEqual([{ spentMicroUsd: segments * 7500, messages: 1 }]);
  });
});

describe('e-mail', () => {
  it('marks a hard bounce so the address is not tried again', async () => {
    const reader = await f.recipient({ email: true });
    f.providers.script(reader.email as string, { result: 'hard_bounce', code: 'hard_bounce' });
    const first = await f.announcement(['email']);
    await f.fanOut(first.id);
    expect(f.h.rows('SELECT email, providerCode FROM EmailHardBounces')).toEqual([{ email: reader.email, providerCode: 'hard_bounce' }]);
    expect(lines('delivery attempt')).toEqual([expect.objectContaining({ level: 'warn', result: 'hard_bounce', addressMarked: true })]);
    const second = await f.announcement(['email']);
    await f.fanOut(second.id);
    expect(f.providers.calls.email).toHaveLength(1);
    expect(await deliveriesOf(f.db, second.id)).toEqual([]);
  });
});

describe('runFanoutInProcess', () => {
  it('runs a whole fan-out with the given providers (the benchmark entry point)', async () => {
    for (let n = 0; n < 8; n += 1) await f.recipient();
    const announcement = await f.announcement();
    const run = await runFanoutInProcess(announcement.id, f.deps, { parallelBatches: 2 });
    expect(run).toMatchObject({ recipients: 8, batches: 3, failedBatches: [], tally: { push: { success: 8 }, sms: { accepted: 8 }, email: { accepted: 8 } } });
  });
});
