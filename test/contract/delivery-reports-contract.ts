import { describe, expect, it } from 'vitest';
import type { Database } from '../../shared/db/database';
import { createLogger } from '../../shared/logging/logger';
import { insertAccountNotice } from '../../shared/messages/account-notice-store';
import { claimDeliveries, deliveriesOf, finishDeliveries, finishDelivery, type DeliveryKey } from '../../shared/notifications/ledger/delivery-ledger';
import { ANNOUNCEMENT_LEDGER, NOTICE_LEDGER } from '../../shared/notifications/ledger/leased-rows';
import { listNoticeDeliveries } from '../../shared/notifications/ledger/notice-deliveries';
import { acceptedBefore, settleReportedDelivery } from '../../shared/notifications/ledger/reported-deliveries';
import { isEmailHardBounced } from '../../shared/notifications/channels/email-hard-bounces';
import { emailOperationId } from '../../shared/notifications/ledger/email-operation-id';
import type { DeliveryProviders, EmailProvider } from '../../shared/ports/delivery';
import { applyCommunicationEvent } from '../../shared/notifications/jobs/apply-communication-event';
import { settleAcceptedDeliveries } from '../../shared/notifications/jobs/settle-accepted-deliveries';
import { smsOptOutOf } from '../../shared/notifications/channels/sms-opt-outs';
import { manualClock } from '../../shared/ports/clock';
import { createInMemoryTelemetry } from '../../shared/telemetry/in-memory';
import { insertUser } from '../../shared/users/user-store';
import { asCloudEvent, asSampleShape, emailDeliveryReport, smsDeliveryReport, smsReceived } from '../helpers/fake-providers/acs-events';
import type { EmailDelivery, SmsDelivery } from '../helpers/fake-providers/fake-acs';
import { LogSink } from '../helpers/log-sink';
import { addPublishedAnnouncement } from '../notifications/notification-fixtures';
import { adultUser, childUser, isoAfter, migratedDatabasePerSuite, numberedId } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

const NOW = '2031-06-01T08:00:00.000Z';
const ANNOUNCEMENT = numberedId(7, 'a');
const PHONE = '+15550107000';
const EMAIL = 'reader.seven@example.test';
const SENDER = 'DoNotReply@notifications.example.test';

async function seed(db: Database): Promise<{ sms: DeliveryKey; email: DeliveryKey }> {
  await insertUser(db, { ...adultUser(7), phone: PHONE, email: EMAIL });
  await addPublishedAnnouncement(db, numberedId(7), { id: ANNOUNCEMENT, channels: ['sms', 'email'] });
  return {
    sms: { announcementId: ANNOUNCEMENT, userId: numberedId(7), channel: 'sms' },
    email: { announcementId: ANNOUNCEMENT, userId: numberedId(7), channel: 'email' },
  };
}

const smsSent = (messageId: string, tag?: string): SmsDelivery => ({
  from: '+18005550100',
  to: PHONE,
  message: 't',
  messageId,
  enableDeliveryReport: true,
  tag,
});
const emailSent = (operationId: string): EmailDelivery => ({
  senderAddress: SENDER,
  to: EMAIL,
  subject: 't',
  plainText: 'b',
  operationId,
  repeatabilityRequestId: undefined,
  repeatabilityFirstSent: undefined,
  end: 'Succeeded',
});

/**
 * What the delivery reports do to the stores: the ledger's `accepted` rows settled by
 * report or by the settle timer, the reply keywords, the bounce list, and each event applied once.
 */
export function describeDeliveryReportsContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Delivery reports: ${name}`, () => {
    const database = migratedDatabasePerSuite(factory);
    const harness = (emailProvider?: Partial<EmailProvider>) => {
      const sink = new LogSink();
      const clock = manualClock(NOW);
      const telemetry = createInMemoryTelemetry();
      const providers = { email: { send: async () => ({ result: 'accepted' as const }), ...emailProvider } } as unknown as DeliveryProviders;
      const deps = {
        database: { get: async () => database() },
        logger: createLogger({ service: 'notifications', level: 'debug', destination: sink }),
        telemetry,
        clock,
        providers,
      };
      return { deps, sink, clock, telemetry };
    };
    const accept = async (key: DeliveryKey, providerMessageId?: string) => {
      const db = database();
      const planned = key.channel === 'email' ? { ...key, plannedMessageId: emailOperationId(key) } : key;
      expect(await claimDeliveries(db, [planned], NOW, isoAfter(NOW, 300_000))).toEqual(['claimed']);
      await finishDelivery(db, key, { result: 'accepted', providerMessageId }, NOW);
    };
    const resultOf = async (key: DeliveryKey) =>
      (await deliveriesOf(database(), ANNOUNCEMENT)).find((row) => row.channel === key.channel);

    it('settles an accepted SMS by its tag and an e-mail by its planned operation id; a second report changes nothing', async () => {
      const keys = await seed(database());
      await accept(keys.sms, 'Outgoing_1');
      await accept(keys.email, emailOperationId(keys.email));
      const { deps, telemetry } = harness();
      const delivered = smsDeliveryReport(smsSent('Outgoing_1', `${ANNOUNCEMENT}/${numberedId(7)}`), 'Delivered');
      expect(await applyCommunicationEvent(delivered, deps)).toMatchObject({ outcome: 'applied', result: 'delivered', key: keys.sms });
      const failedLater = smsDeliveryReport(smsSent('Outgoing_1', `${ANNOUNCEMENT}/${numberedId(7)}`), 'Failed');
      expect(await applyCommunicationEvent(failedLater, deps)).toMatchObject({ outcome: 'no_change', why: 'unmatched' });
      expect(await applyCommunicationEvent(delivered, deps)).toMatchObject({ outcome: 'duplicate' });
      const email = emailDeliveryReport(emailSent(emailOperationId(keys.email)), 'Delivered');
      expect(await applyCommunicationEvent(asCloudEvent(email), deps)).toMatchObject({ outcome: 'applied', result: 'delivered', key: keys.email });
      expect(await resultOf(keys.sms)).toMatchObject({ result: 'delivered', providerMessageId: 'Outgoing_1', claimedUntil: null });
      expect(await resultOf(keys.email)).toMatchObject({ result: 'delivered' });
      expect(telemetry.itemsOf('event', 'notification.delivery').map((item) => item.properties)).toEqual([
        { channel: 'sms', result: 'delivered' },
        { channel: 'email', result: 'delivered' },
      ]);
    });

    it('applies events shaped as Microsoft\'s samples show them (capitalised fields, numbers without "+"), in both schemas', async () => {
      const keys = await seed(database());
      await accept(keys.sms, 'Outgoing_5');
      await accept(keys.email, emailOperationId(keys.email));
      const { deps, sink } = harness();
      const ours = { ...deps, smsFrom: '+18005550100' };
      // Found by its Tag (the message id alone would not find it: the row's is Outgoing_5).
      const delivered = asSampleShape(smsDeliveryReport(smsSent('Outgoing_other', `${ANNOUNCEMENT}/${numberedId(7)}`), 'Delivered'));
      expect(delivered.data).toMatchObject({ MessageId: 'Outgoing_other', Tag: `${ANNOUNCEMENT}/${numberedId(7)}`, From: '18005550100' });
      expect(await applyCommunicationEvent(delivered, ours)).toMatchObject({ outcome: 'applied', result: 'delivered', key: keys.sms });
      const bounced = asSampleShape(emailDeliveryReport(emailSent(emailOperationId(keys.email)), 'Bounced'));
      expect(await applyCommunicationEvent(asCloudEvent(bounced), ours)).toMatchObject({ outcome: 'applied', result: 'hard_bounce', key: keys.email });
      expect(await isEmailHardBounced(database(), EMAIL)).toBe(true);
      // A STOP from the number written without "+", to the service's number written without it too.
      const stop = asSampleShape(smsReceived(PHONE, '+18005550100', 'STOP', new Date(NOW)));
      expect(stop.data).toMatchObject({ From: PHONE.slice(1), To: '18005550100', Message: 'STOP' });
      expect(await applyCommunicationEvent(asCloudEvent(stop), ours)).toMatchObject({ outcome: 'applied', result: 'sms_stop' });
      expect(await smsOptOutOf(database(), numberedId(7), PHONE)).toBe('provider_stop');
      const start = asSampleShape(smsReceived(PHONE, '+18005550100', 'START', new Date(isoAfter(NOW, 60_000))));
      expect(await applyCommunicationEvent(start, ours)).toMatchObject({ outcome: 'applied', result: 'sms_start' });
      expect(await smsOptOutOf(database(), numberedId(7), PHONE)).toBeUndefined();
      // Still malformed in the sample shape: refused with the warn line, the field named, never the value.
      const noNumber = asSampleShape(smsReceived('Contoso', '+18005550100', 'STOP'));
      expect(await applyCommunicationEvent(noNumber, ours)).toMatchObject({ outcome: 'refused', reason: 'data: from: custom' });
      expect(sink.lines.filter((line) => line.message === 'communication event refused')).toEqual([
        expect.objectContaining({ level: 'warn', eventType: 'Microsoft.Communication.SMSReceived', reason: 'data: from: custom' }),
      ]);
      expect(sink.raw.join('\n')).not.toContain(PHONE.slice(2));
    });

    it("keeps a report that overtook the send: the send's own `accepted` does not overwrite it", async () => {
      const keys = await seed(database());
      const db = database();
      await claimDeliveries(db, [{ ...keys.email, plannedMessageId: emailOperationId(keys.email) }], NOW, isoAfter(NOW, 300_000));
      const { deps } = harness();
      await applyCommunicationEvent(emailDeliveryReport(emailSent(emailOperationId(keys.email)), 'Bounced'), deps);
      await finishDelivery(db, keys.email, { result: 'accepted', providerMessageId: emailOperationId(keys.email) }, isoAfter(NOW, 1));
      expect(await resultOf(keys.email)).toMatchObject({ result: 'hard_bounce', providerCode: 'Bounced' });
      expect(await isEmailHardBounced(db, EMAIL.toUpperCase())).toBe(true);
    });

    it('finds an e-mail report that spells the operation id in upper case', async () => {
      const keys = await seed(database());
      await accept(keys.email, emailOperationId(keys.email));
      const report = emailDeliveryReport(emailSent(emailOperationId(keys.email).toUpperCase()), 'Delivered');
      expect(await applyCommunicationEvent(report, harness().deps)).toMatchObject({ outcome: 'applied', result: 'delivered' });
    });

    it('settles by message id when an SMS report has no tag, and leaves reports for unknown messages alone', async () => {
      const keys = await seed(database());
      await accept(keys.sms, 'Outgoing_2');
      const { deps } = harness();
      expect(await applyCommunicationEvent(smsDeliveryReport(smsSent('Outgoing_2'), 'Failed'), deps)).toMatchObject({ result: 'failed' });
      expect(await resultOf(keys.sms)).toMatchObject({ result: 'failed', providerCode: 'Failed' });
      expect(await applyCommunicationEvent(smsDeliveryReport(smsSent('Outgoing_unknown'), 'Delivered'), deps)).toMatchObject({ outcome: 'no_change' });
      expect(await settleReportedDelivery(database(), { channel: 'sms', providerMessageId: 'Outgoing_2' }, { result: 'delivered' }, NOW)).toBeUndefined();
    });

    it('settles an e-mail whose operation stays unknown or running only after a day', async () => {
      const keys = await seed(database());
      await accept(keys.email, emailOperationId(keys.email));
      const { deps, clock } = harness({ operationOutcome: async () => ({ state: 'running' }) });
      clock.set(isoAfter(NOW, 23 * 60 * 60 * 1000));
      expect(await settleAcceptedDeliveries(deps)).toMatchObject({ settled: 0, stillWaiting: 1 });
      clock.set(isoAfter(NOW, 25 * 60 * 60 * 1000));
      expect(await settleAcceptedDeliveries(deps)).toMatchObject({ settled: 1, stillWaiting: 0 });
      expect(await resultOf(keys.email)).toMatchObject({ result: 'failed', providerCode: 'no_final_status' });
    });

    it('applies STOP and START by their send time whatever order they arrive in, each event once', async () => {
      const db = database();
      await seed(db);
      const { deps, clock } = harness();
      clock.set(isoAfter(NOW, 3_600_000));
      const start = smsReceived(PHONE, '+18005550100', 'Start', new Date(isoAfter(NOW, 60_000)));
      const stop = smsReceived(PHONE, '+18005550100', 'STOP', new Date(NOW));
      expect(await applyCommunicationEvent(start, deps)).toMatchObject({ outcome: 'applied', result: 'sms_start' });
      expect(await applyCommunicationEvent(stop, deps)).toMatchObject({ outcome: 'applied', result: 'sms_stop' });
      expect(await smsOptOutOf(db, numberedId(7), PHONE)).toBeUndefined();
      const stopAgain = smsReceived(PHONE, '+18005550100', 'unsubscribe.', new Date(isoAfter(NOW, 120_000)));
      await applyCommunicationEvent(stopAgain, deps);
      await applyCommunicationEvent(start, deps);
      expect(await smsOptOutOf(db, numberedId(7), PHONE)).toBe('provider_stop');
      expect(await applyCommunicationEvent(smsReceived(PHONE, '+18005550100', 'Stop sending me bake sale news'), deps)).toMatchObject({
        outcome: 'no_change',
        why: 'not_a_keyword',
      });
      // A reply to another number of the resource, or from something that is no phone number, changes nothing.
      const ours = { ...deps, smsFrom: '+18005550100' };
      expect(await applyCommunicationEvent(smsReceived(PHONE, '+18005550199', 'START', new Date(isoAfter(NOW, 180_000))), ours)).toMatchObject({
        why: 'not_our_number',
      });
      expect(await applyCommunicationEvent(smsReceived('Contoso', '+18005550100', 'STOP'), ours)).toMatchObject({ outcome: 'refused', reason: 'data: from: custom' });
      expect(await smsOptOutOf(db, numberedId(7), PHONE)).toBe('provider_stop');
      // A STOP dated in the future counts as sent now, so a START sent later still wins.
      await applyCommunicationEvent(smsReceived(PHONE, '+18005550100', 'STOP', new Date(isoAfter(NOW, 365 * 24 * 3600 * 1000))), ours);
      clock.set(isoAfter(NOW, 7_200_000));
      await applyCommunicationEvent(smsReceived(PHONE, '+18005550100', 'START', new Date(isoAfter(NOW, 7_200_000))), ours);
      expect(await smsOptOutOf(db, numberedId(7), PHONE)).toBeUndefined();
    });

    it('refuses malformed events and acknowledges other types, with lines that name no value', async () => {
      await seed(database());
      const { deps, sink } = harness();
      const broken = smsReceived(PHONE, '+18005550100', 'STOP');
      delete (broken.data as { receivedTimestamp?: unknown }).receivedTimestamp;
      expect(await applyCommunicationEvent(broken, deps)).toMatchObject({ outcome: 'refused', reason: 'data: receivedTimestamp: invalid_type' });
      expect(await applyCommunicationEvent({ ...broken, id: 'x'.repeat(200) }, deps)).toMatchObject({ outcome: 'refused' });
      expect(await applyCommunicationEvent('not json', deps)).toMatchObject({ outcome: 'refused' });
      expect(await applyCommunicationEvent({ ...broken, data: { ...broken.data, message: 'ok \uD800' } }, deps)).toMatchObject({ outcome: 'refused' });
      const other = { ...broken, eventType: 'Microsoft.Communication.ChatMessageReceived', data: {} };
      expect(await applyCommunicationEvent(other, deps)).toEqual({ outcome: 'ignored', type: 'Microsoft.Communication.ChatMessageReceived' });
      expect(sink.raw.join('\n')).not.toContain(PHONE.slice(1));
      expect(await database().query('SELECT eventId FROM ProviderEvents')).toEqual([]);
    });

    it('settles what never got a report: an e-mail by asking its operation once, an old SMS as sent; old event ids are forgotten', async () => {
      const keys = await seed(database());
      await accept(keys.sms, 'Outgoing_3');
      await accept(keys.email, emailOperationId(keys.email));
      await applyCommunicationEvent(smsReceived(PHONE, '+18005550100', 'START', new Date(NOW)), harness().deps);
      const asked: string[] = [];
      const { deps, clock } = harness({
        operationOutcome: async (id) => {
          asked.push(id);
          return asked.length === 1
            ? { state: 'unknown', code: 'Forbidden' }
            : { state: 'ended', outcome: { result: 'hard_bounce', code: 'EmailDroppedAllRecipientsSuppressed' } };
        },
      });
      clock.set(isoAfter(NOW, 2 * 60 * 60 * 1000));
      expect(await settleAcceptedDeliveries(deps)).toEqual({ settled: 0, stillWaiting: 1, eventIdsForgotten: 0 });
      clock.set(isoAfter(NOW, 3 * 24 * 60 * 60 * 1000));
      expect(await settleAcceptedDeliveries(deps)).toEqual({ settled: 2, stillWaiting: 0, eventIdsForgotten: 0 });
      expect(asked).toEqual([emailOperationId(keys.email), emailOperationId(keys.email)]);
      expect(await resultOf(keys.sms)).toMatchObject({ result: 'success', providerCode: 'no_report' });
      expect(await resultOf(keys.email)).toMatchObject({ result: 'hard_bounce' });
      expect(await acceptedBefore(database(), ANNOUNCEMENT_LEDGER, 'email', isoAfter(NOW, 10 ** 10), 10)).toEqual([]);
      clock.set(isoAfter(NOW, 8 * 24 * 60 * 60 * 1000));
      expect(await settleAcceptedDeliveries(deps)).toMatchObject({ eventIdsForgotten: 1 });
    });

    it("settles an account notice's accepted e-mail in the notices' ledger, by its report and by the settle timer", async () => {
      const db = database();
      await seed(db);
      await insertUser(db, childUser(8, numberedId(7)));
      const notices = [numberedId(9, 'c'), numberedId(10, 'c')];
      for (const [n, id] of notices.entries()) {
        await insertAccountNotice(db, { id, kind: 'child_locked', recipientUserId: numberedId(7), subjectUserId: numberedId(8), eventAt: isoAfter(NOW, n), createdAt: NOW });
      }
      // Claimed and written by the engine's statements on the notices' ledger (its ids in the engine's key).
      const operationIdOf = (noticeId: string) => emailOperationId({ announcementId: `notice:${noticeId}`, userId: numberedId(7) });
      for (const noticeId of notices) {
        const key = { announcementId: noticeId, userId: numberedId(7), channel: 'email' as const };
        expect(await claimDeliveries(db, [{ ...key, plannedMessageId: operationIdOf(noticeId) }], NOW, isoAfter(NOW, 300_000), NOTICE_LEDGER)).toEqual(['claimed']);
        await finishDeliveries(db, db.dialect, noticeId, 'email', [{ userId: numberedId(7), result: 'accepted' }], NOW, NOTICE_LEDGER);
      }
      const [reported, timed] = notices as [string, string];
      const { deps, clock, sink } = harness({ operationOutcome: async () => ({ state: 'ended', outcome: { result: 'success' } }) });
      const delivered = emailDeliveryReport(emailSent(operationIdOf(reported).toUpperCase()), 'Delivered');
      expect(await applyCommunicationEvent(delivered, deps)).toMatchObject({
        outcome: 'applied',
        result: 'delivered',
        key: { noticeId: reported, userId: numberedId(7), channel: 'email' },
      });
      expect(await applyCommunicationEvent(delivered, deps)).toMatchObject({ outcome: 'duplicate' });
      expect(await listNoticeDeliveries(db, reported)).toMatchObject([{ result: 'delivered', providerMessageId: operationIdOf(reported) }]);
      expect(await acceptedBefore(db, NOTICE_LEDGER, 'email', NOW, 10)).toEqual([
        expect.objectContaining({ noticeId: timed, userId: numberedId(7), channel: 'email', providerMessageId: operationIdOf(timed) }),
      ]);
      clock.set(isoAfter(NOW, 2 * 60 * 60 * 1000));
      expect(await settleAcceptedDeliveries(deps)).toEqual({ settled: 1, stillWaiting: 0, eventIdsForgotten: 0 });
      expect(await listNoticeDeliveries(db, timed)).toMatchObject([{ result: 'success', providerCode: 'no_report' }]);
      expect(sink.withMessage('accepted delivery settled without a report')).toEqual([
        expect.objectContaining({ level: 'info', noticeId: timed, recipientUserId: numberedId(7), channel: 'email', result: 'success' }),
      ]);
      expect(await deliveriesOf(db, ANNOUNCEMENT)).toEqual([]);
    });

    it('settles an SMS whose interrupted send was not resent (outcome unknown) and never reported as failed, not as sent', async () => {
      const keys = await seed(database());
      const db = database();
      expect(await claimDeliveries(db, [keys.sms], NOW, isoAfter(NOW, 300_000))).toEqual(['claimed']);
      await finishDelivery(db, keys.sms, { result: 'accepted', providerCode: 'outcome_unknown' }, NOW);
      const { deps, clock, sink } = harness();
      clock.set(isoAfter(NOW, 3 * 24 * 60 * 60 * 1000));
      expect(await settleAcceptedDeliveries(deps)).toMatchObject({ settled: 1 });
      expect(await resultOf(keys.sms)).toMatchObject({ result: 'failed', providerCode: 'outcome_unknown' });
      expect(sink.withMessage('accepted delivery settled without a report')).toEqual([
        expect.objectContaining({ level: 'warn', channel: 'sms', result: 'failed', providerCode: 'outcome_unknown' }),
      ]);
    });
  });
}
