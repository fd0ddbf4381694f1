import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deliveriesOf } from '../../shared/notifications/ledger/delivery-ledger';
import type { FanoutMessage } from '../../shared/messages/fanout-message';
import { REPEATABILITY_EXPIRED, type EmailOperationState, type EmailProvider, type SendObserver, type SmsProvider } from '../../shared/ports/delivery';
import { repeatabilityRequestId, RESEND_WITHIN_MS } from '../../shared/notifications/ledger/send-repeatability';
import { createFanoutHarness, expectNoFanoutLeaks, type FanoutHarness } from './fanout-harness';
import { transient500 } from './notification-fixtures';

/**
 * A send handed to the provider whose answer never made it into the ledger (the
 * process died in between, simulated here by a provider call that throws after the provider took
 * the message). The redelivered batch resends the very same repeatable request while ACS still
 * recognises it, and past that window sends nothing blindly: an SMS waits for its delivery report,
 * an e-mail's operation is read.
 */
let f: FanoutHarness;

beforeEach(async () => {
  f = await createFanoutHarness();
});

afterEach(async () => {
  expectNoFanoutLeaks(f);
  await f.close();
});

const MINUTE = 60_000;

/** Makes the channel's next send reach the provider and then fail as a dead process would: no answer recorded. */
function dieAfterNextSend(provider: SmsProvider | EmailProvider): void {
  const send = provider.send.bind(provider);
  let died = false;
  provider.send = async (message: never, observer?: SendObserver) => {
    const outcome = await send(message, observer);
    if (died) return outcome;
    died = true;
    throw new Error('the process died after the provider took the message');
  };
}

async function interruptedBatch(channel: 'sms' | 'email'): Promise<{ announcementId: string; userId: string; batch: FanoutMessage }> {
  const reader = await f.recipient(channel === 'sms' ? { phone: true } : { email: true });
  const announcement = await f.announcement([channel]);
  dieAfterNextSend(f.providers[channel]);
  const [error] = await f.fanOut(announcement.id);
  expect(error).toBeInstanceOf(Error);
  expect(f.providers.calls[channel]).toHaveLength(1);
  const batch = f.queue.messages.at(-1) as FanoutMessage;
  expect(batch.batch).toBeDefined();
  return { announcementId: announcement.id, userId: reader.user.id, batch };
}

describe('an SMS handed to the provider but not recorded', () => {
  it('is resent inside the window as the same repeatable request: same id, same first-sent time', async () => {
    const sentAt = f.h.clock.now();
    const { announcementId, userId, batch } = await interruptedBatch('sms');
    f.h.clock.advance(2 * MINUTE);
    await f.handle(batch);
    const [first, second] = f.providers.calls.sms;
    expect(first?.repeatability).toEqual({ requestId: repeatabilityRequestId({ announcementId, userId, channel: 'sms' }), firstSent: sentAt });
    expect(second?.repeatability).toEqual(first?.repeatability);
    expect(await deliveriesOf(f.db, announcementId)).toEqual([expect.objectContaining({ result: 'accepted', attempts: 2 })]);
    // Counted: a row found marked first-sent with no answer, which the repeatable request makes safe to send again.
    expect(f.h.sink.withMessage('fan-out batch resent interrupted sends under their first request')).toEqual([
      expect.objectContaining({ level: 'warn', announcementId, channel: 'sms', resumedSends: 1 }),
    ]);
    expect(f.h.telemetry.itemsOf('event', 'notification.send_resumed').map((item) => item.properties)).toEqual([{ announcementId, channel: 'sms', count: 1 }]);
    expect(f.h.telemetry.itemsOf('event', 'notification.outcome_unknown')).toEqual([]);
  });

  it('is not sent again past the window: recorded accepted with its outcome unknown, for the delivery report to settle', async () => {
    const { announcementId, batch } = await interruptedBatch('sms');
    f.h.clock.advance(RESEND_WITHIN_MS + 1);
    await f.handle(batch);
    expect(f.providers.calls.sms).toHaveLength(1);
    expect(await deliveriesOf(f.db, announcementId)).toEqual([expect.objectContaining({ result: 'accepted', providerCode: 'outcome_unknown' })]);
    expect(f.h.sink.withMessage('delivery outcome unknown after an interrupted send')).toEqual([
      expect.objectContaining({ level: 'warn', channel: 'sms', errorCode: 'outcome_unknown', decided: 'await_report' }),
    ]);
    // Counted in the fan-out's telemetry the same day: the batch's summary, a
    // warn line after it, and the event the SMS delivery warning fires on.
    expect(f.h.sink.withMessage('fan-out batch delivered').at(-1)).toMatchObject({ smsResults: { accepted: 1, outcome_unknown: 1 } });
    expect(f.h.sink.withMessage('fan-out batch left deliveries with an unknown outcome')).toEqual([
      expect.objectContaining({ level: 'warn', announcementId, channel: 'sms', outcomeUnknown: 1, errorCode: 'outcome_unknown' }),
    ]);
    expect(f.h.telemetry.itemsOf('event', 'notification.outcome_unknown').map((item) => item.properties)).toEqual([{ announcementId, channel: 'sms', count: 1 }]);
  });

  it('treats the provider refusing the resend as too old (412) the same way', async () => {
    const { announcementId, batch } = await interruptedBatch('sms');
    const phone = f.providers.calls.sms[0]?.to as string;
    f.providers.script(phone, { result: 'provider_error', code: REPEATABILITY_EXPIRED, transient: false });
    f.h.clock.advance(MINUTE);
    await f.handle(batch);
    expect(f.providers.calls.sms).toHaveLength(2);
    expect(await deliveriesOf(f.db, announcementId)).toEqual([expect.objectContaining({ result: 'accepted', providerCode: 'outcome_unknown' })]);
    // The refused resend's spend was given back; the first send's stays counted.
    expect(f.h.rows('SELECT messages FROM SmsMonthlySpend')).toEqual([{ messages: 1 }]);
    expect(f.h.telemetry.itemsOf('event', 'notification.outcome_unknown').map((item) => item.properties)).toEqual([{ announcementId, channel: 'sms', count: 1 }]);
  });
});

describe('a send the provider refused', () => {
  it('is a first send again later: a refusal sent nothing, so no window applies', async () => {
    const reader = await f.recipient({ phone: true });
    f.providers.script(reader.phone as string, transient500, transient500, transient500, { result: 'accepted' });
    const announcement = await f.announcement(['sms']);
    const [error] = await f.fanOut(announcement.id);
    expect(error).toBeInstanceOf(Error);
    f.h.clock.advance(RESEND_WITHIN_MS + 1);
    await f.handle(f.queue.messages.at(-1));
    expect(f.providers.calls.sms).toHaveLength(4);
    expect(f.providers.calls.sms[3]?.repeatability?.firstSent).toEqual(f.h.clock.now());
    expect(await deliveriesOf(f.db, announcement.id)).toEqual([expect.objectContaining({ result: 'accepted', providerCode: null })]);
  });
});

describe('an e-mail handed to the provider but not recorded, past the window', () => {
  const lookups: string[] = [];
  const answerLookups = (state: EmailOperationState) => {
    lookups.length = 0;
    f.providers.email.operationOutcome = async (operationId) => {
      lookups.push(operationId);
      return state;
    };
  };

  it('reads its operation: still running is accepted, nothing sent again', async () => {
    const { announcementId, batch } = await interruptedBatch('email');
    answerLookups({ state: 'running' });
    f.h.clock.advance(RESEND_WITHIN_MS + 1);
    await f.handle(batch);
    const operationId = f.providers.calls.email[0]?.operationId;
    expect(lookups).toEqual([operationId]);
    expect(f.providers.calls.email).toHaveLength(1);
    expect(await deliveriesOf(f.db, announcementId)).toEqual([expect.objectContaining({ result: 'accepted', providerMessageId: operationId })]);
  });

  it('sends it as a first send when ACS never took it (operation not found), with a new first-sent time', async () => {
    const { announcementId, batch } = await interruptedBatch('email');
    answerLookups({ state: 'unknown', code: 'NotFound' });
    f.h.clock.advance(RESEND_WITHIN_MS + 1);
    await f.handle(batch);
    const [first, second] = f.providers.calls.email;
    expect(second?.repeatability?.requestId).toBe(first?.repeatability?.requestId);
    expect(second?.repeatability?.firstSent).toEqual(f.h.clock.now());
    expect(await deliveriesOf(f.db, announcementId)).toEqual([expect.objectContaining({ result: 'accepted' })]);
  });

  it('leaves it owed when the question fails', async () => {
    const { announcementId, batch } = await interruptedBatch('email');
    answerLookups({ state: 'unknown', code: 'http_503' });
    f.h.clock.advance(RESEND_WITHIN_MS + 1);
    await expect(f.handle(batch)).rejects.toThrow();
    expect(f.providers.calls.email).toHaveLength(1);
    expect(await deliveriesOf(f.db, announcementId)).toEqual([expect.objectContaining({ result: 'pending', providerCode: 'http_503' })]);
  });
});
