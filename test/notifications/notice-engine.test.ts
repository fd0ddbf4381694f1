import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lockChild } from '../../shared/children/child-account-store';
import { buildFanoutDeps } from '../../shared/composition/fanout-services';
import type { Database } from '../../shared/db/database';
import { createLogger } from '../../shared/logging/logger';
import { recordChildLockedNotice } from '../../shared/messages/account-notices';
import type { NoticeMessage } from '../../shared/messages/notice-message';
import type { FanoutDeps } from '../../shared/notifications/engine/fanout-deps';
import { isEmailHardBounced } from '../../shared/notifications/channels/email-hard-bounces';
import { applyCommunicationEvent } from '../../shared/notifications/jobs/apply-communication-event';
import { handleFanoutMessage } from '../../shared/notifications/jobs/handle-fanout-message';
import { EMAIL_REPORT_WAIT_MS, settleAcceptedDeliveries } from '../../shared/notifications/jobs/settle-accepted-deliveries';
import { emailOperationId } from '../../shared/notifications/ledger/email-operation-id';
import { listNoticeDeliveries } from '../../shared/notifications/ledger/notice-deliveries';
import { repeatabilityRequestId } from '../../shared/notifications/ledger/send-repeatability';
import type { SendObserver } from '../../shared/ports/delivery';
import { cryptoRandom } from '../../shared/ports/random';
import { registerPushToken } from '../../shared/users/push-tokens';
import type { User } from '../../shared/users/user';
import { createFlowHarness, type FlowHarness } from '../auth/flows/flow-harness';
import { emailDeliveryReport } from '../helpers/fake-providers/acs-events';
import { startFakeProviders, type FakeProviders } from '../helpers/fake-providers/start-fake-providers';
import { parseLogLine } from '../helpers/log-schema';

/**
 * An account notice delivered by the delivery engine through the real adapters, over HTTP, to the
 * fake Expo and ACS services: its rows are claimed, marked first-sent and written by the engine's
 * statements on the notices' ledger, so its e-mail goes as a repeatable request (the row's own
 * request id and the first-sent time its row recorded), and a crash between the send and its
 * record resends the same request, which ACS answers without sending twice.
 */
let fakes: FakeProviders;
let h: FlowHarness;
let db: Database;
let deps: FanoutDeps;
let counter = 0;

beforeAll(async () => {
  fakes = await startFakeProviders();
});

afterAll(async () => {
  await fakes.close();
});

beforeEach(async () => {
  fakes.reset();
  h = await createFlowHarness({ env: fakes.env });
  // ACS checks a repeatable request's first-sent time against its own clock: the real one.
  h.clock.set(new Date());
  db = await h.services.database.get();
  deps = buildFanoutDeps(h.services, {
    logger: createLogger({ service: 'notifications', level: 'info', destination: h.sink }),
    sleep: async () => undefined,
  });
});

afterEach(async () => {
  for (const line of h.sink.raw) expect(() => parseLogLine(line)).not.toThrow();
  expect(h.leaks()).toEqual({ log: [], audit: [], telemetry: [] });
  await h.close();
});

interface LockedFamily {
  parent: User;
  email: string;
  token: string;
  childId: string;
  message: NoticeMessage;
}

/** A parent with an address and a device, and their child's account locked with its notice recorded. */
async function lockedFamily(): Promise<LockedFamily> {
  counter += 1;
  const email = `parent.${counter}.${Date.now() % 100_000}@canary-mail.test`;
  const token = `ExponentPushToken[canaryNotice${counter}x${Date.now() % 100_000}]`;
  h.canaries.add(email, token, token.slice('ExponentPushToken['.length, -1));
  const parent = await h.insertAdult({ email });
  await db.transaction((tx) => registerPushToken(tx, parent.id, token, h.clock.now().toISOString()));
  const child = await h.createChild(parent, `wombat.${counter}x${Date.now() % 100_000}`, '5072841');
  const lockedAt = h.clock.now().toISOString();
  const notice = await db.transaction(async (tx) => {
    await lockChild(tx, child.id, lockedAt);
    return recordChildLockedNotice(tx, { parentId: parent.id, childId: child.id, lockedAt }, { clock: h.clock, random: cryptoRandom });
  });
  return { parent, email, token, childId: child.id, message: { notice } };
}

const MINUTE = 60_000;

describe('an account notice through the delivery engine', () => {
  it("e-mails under the row's repeatable request and first-sent mark, and pushes the notice's data without a ticket", async () => {
    const { parent, email, token, childId, message } = await lockedFamily();
    const noticeId = message.notice.id;
    expect(await handleFanoutMessage(message, deps)).toEqual({ kind: 'notice', noticeId, channels: { push: 'success', email: 'accepted' } });

    const [emailRow, pushRow] = await listNoticeDeliveries(db, noticeId);
    const operationId = emailOperationId({ announcementId: `notice:${noticeId}`, userId: parent.id });
    expect(emailRow).toMatchObject({ userId: parent.id, channel: 'email', result: 'accepted', attempts: 1, providerMessageId: operationId, firstSentAt: expect.any(String) });
    expect(pushRow).toMatchObject({ userId: parent.id, channel: 'push', result: 'success', attempts: 1, firstSentAt: null });
    expect(fakes.acs.emailsTo(email)).toEqual([
      expect.objectContaining({
        operationId,
        repeatabilityRequestId: repeatabilityRequestId({ announcementId: noticeId, userId: parent.id, channel: 'email' }),
        repeatabilityFirstSent: new Date(String(emailRow?.firstSentAt)).toUTCString(),
      }),
    ]);
    expect(fakes.expo.deliveriesTo(token)).toEqual([expect.objectContaining({ data: { notice: 'child_locked', childId } })]);
    // Push tickets name an announcement: a notice's push keeps none.
    expect(h.rows('SELECT COUNT(*) AS n FROM PushTickets')).toEqual([{ n: 0 }]);
    expect(h.rows('SELECT COUNT(*) AS n FROM NotificationDeliveries')).toEqual([{ n: 0 }]);
  });

  it('resends an e-mail the provider took before the process died as the same request: ACS answers it, nobody gets two', async () => {
    const { parent, email, message } = await lockedFamily();
    const noticeId = message.notice.id;
    const send = deps.providers.email.send.bind(deps.providers.email);
    let died = false;
    deps.providers.email.send = async (sent: never, observer?: SendObserver) => {
      const outcome = await send(sent, observer);
      if (died) return outcome;
      died = true;
      throw new Error('the process died after the provider took the message');
    };
    await expect(handleFanoutMessage(message, deps)).rejects.toThrow('the process died');
    expect(fakes.acs.emailsTo(email)).toHaveLength(1);
    const [interrupted] = await listNoticeDeliveries(db, noticeId);
    expect(interrupted).toMatchObject({ channel: 'email', result: 'pending', firstSentAt: expect.any(String) });

    // The queue's next try, a minute later: inside ACS's window, so the same pair goes again.
    h.clock.advance(MINUTE);
    expect(await handleFanoutMessage(message, deps)).toEqual({ kind: 'notice', noticeId, channels: { push: 'done', email: 'accepted' } });
    expect(fakes.acs.emailsTo(email)).toHaveLength(1);
    expect(fakes.acs.requests.repeats).toBe(1);
    const [resent] = await listNoticeDeliveries(db, noticeId);
    expect(resent).toMatchObject({ channel: 'email', result: 'accepted', attempts: 2, firstSentAt: interrupted?.firstSentAt });
    expect(h.sink.withMessage('account notice resent an interrupted send under its first request')).toEqual([
      expect.objectContaining({ level: 'warn', noticeId, channel: 'email', resumedSends: 1 }),
    ]);
    expect(h.sink.withMessage('delivery attempt').filter((line) => line.channel === 'email')).toEqual([
      expect.objectContaining({ noticeId, recipientUserId: parent.id, result: 'accepted' }),
    ]);
  });
});

describe("an account notice's accepted e-mail, settled", () => {
  /** A notice delivered: its push done, its e-mail `accepted` at ACS's 202. */
  async function acceptedNotice(): Promise<LockedFamily & { noticeId: string }> {
    const family = await lockedFamily();
    const noticeId = family.message.notice.id;
    expect(await handleFanoutMessage(family.message, deps)).toEqual({ kind: 'notice', noticeId, channels: { push: 'success', email: 'accepted' } });
    return { ...family, noticeId };
  }
  const emailRowOf = async (noticeId: string) => (await listNoticeDeliveries(db, noticeId)).find((row) => row.channel === 'email');
  /** The `notification.delivery` events of settled results (the send's own `accepted` and push `success` left out). */
  const settledEvents = () =>
    h.telemetry
      .itemsOf('event', 'notification.delivery')
      .map((item) => item.properties)
      .filter((event) => event?.result !== 'success' && event?.result !== 'accepted');
  const sentTo = (email: string) => {
    const [sent] = fakes.acs.emailsTo(email);
    if (!sent) throw new Error('the notice e-mail was not sent');
    return sent;
  };

  it('by its delivery report, found by the operation id ACS echoes in upper case; a redelivered or later report changes nothing', async () => {
    const { parent, email, noticeId } = await acceptedNotice();
    const sent = sentTo(email);
    const delivered = emailDeliveryReport({ ...sent, operationId: sent.operationId.toUpperCase() }, 'Delivered');
    const key = { noticeId, userId: parent.id, channel: 'email' };
    expect(await applyCommunicationEvent(delivered, deps)).toEqual({ outcome: 'applied', type: delivered.eventType, result: 'delivered', key });
    expect(await emailRowOf(noticeId)).toMatchObject({ result: 'delivered', providerCode: null, providerMessageId: sent.operationId, claimedUntil: null });
    expect(await applyCommunicationEvent(delivered, deps)).toMatchObject({ outcome: 'duplicate' });
    expect(await applyCommunicationEvent(emailDeliveryReport(sent, 'Failed'), deps)).toMatchObject({ outcome: 'no_change', why: 'unmatched' });
    expect(await emailRowOf(noticeId)).toMatchObject({ result: 'delivered' });
    const [line, ...more] = h.sink.withMessage('communication event applied');
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: 'info', eventId: delivered.id, noticeId, recipientUserId: parent.id, channel: 'email', result: 'delivered' });
    expect(line).not.toHaveProperty('announcementId');
    expect(settledEvents()).toEqual([{ channel: 'email', result: 'delivered' }]);
  });

  it('by a bounce report: `hard_bounce`, and the address is never tried again', async () => {
    const { parent, email, noticeId } = await acceptedNotice();
    const bounced = emailDeliveryReport(sentTo(email), 'Bounced');
    expect(await applyCommunicationEvent(bounced, deps)).toMatchObject({ outcome: 'applied', result: 'hard_bounce', key: { noticeId, userId: parent.id, channel: 'email' } });
    expect(await emailRowOf(noticeId)).toMatchObject({ result: 'hard_bounce', providerCode: 'Bounced' });
    expect(await isEmailHardBounced(db, email)).toBe(true);
    expect(h.sink.withMessage('communication event applied')).toEqual([expect.objectContaining({ level: 'warn', noticeId, result: 'hard_bounce' })]);
  });

  it('by the settle timer, which asks its operation once it is an hour old, with the notice named in its line', async () => {
    const { parent, email, message } = await lockedFamily();
    const noticeId = message.notice.id;
    // ACS takes the e-mail, then its operation fails: the address is suppressed.
    fakes.acs.scriptEmail(email, 'hard_bounce');
    expect(await handleFanoutMessage(message, deps)).toMatchObject({ channels: { email: 'accepted' } });
    expect(fakes.acs.emailsTo(email)).toHaveLength(1);
    // Not an hour old yet: nothing asked.
    h.clock.advance(EMAIL_REPORT_WAIT_MS - MINUTE);
    expect(await settleAcceptedDeliveries(deps)).toEqual({ settled: 0, stillWaiting: 0, eventIdsForgotten: 0 });
    expect(fakes.acs.requests.emailStatus).toBe(0);
    expect(await emailRowOf(noticeId)).toMatchObject({ result: 'accepted' });
    // Past the hour: its operation is asked once, and says the address is suppressed.
    h.clock.advance(2 * MINUTE);
    expect(await settleAcceptedDeliveries(deps)).toEqual({ settled: 1, stillWaiting: 0, eventIdsForgotten: 0 });
    expect(fakes.acs.requests.emailStatus).toBe(1);
    expect(await emailRowOf(noticeId)).toMatchObject({ result: 'hard_bounce', providerCode: 'EmailDroppedAllRecipientsSuppressed', claimedUntil: null });
    const [line, ...more] = h.sink.withMessage('accepted delivery settled without a report');
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: 'warn', noticeId, recipientUserId: parent.id, channel: 'email', result: 'hard_bounce', source: 'settle' });
    expect(line).not.toHaveProperty('announcementId');
    expect(settledEvents()).toEqual([{ channel: 'email', result: 'hard_bounce' }]);
    // Settled once: the next run has nothing to ask.
    h.clock.advance(15 * MINUTE);
    expect(await settleAcceptedDeliveries(deps)).toEqual({ settled: 0, stillWaiting: 0, eventIdsForgotten: 0 });
    expect(fakes.acs.requests.emailStatus).toBe(1);
  });
});
