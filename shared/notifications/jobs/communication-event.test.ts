import { describe, expect, it } from 'vitest';
import { EMAIL_DELIVERY_REPORT, parseCommunicationEvent, SMS_DELIVERY_REPORT, SMS_RECEIVED } from './communication-event';

const smsReport = {
  id: 'e1',
  topic: '/subscriptions/x/resourceGroups/y/providers/Microsoft.Communication/communicationServices/acs',
  subject: '/phonenumber/15555555555',
  eventType: SMS_DELIVERY_REPORT,
  eventTime: '2031-06-01T08:00:05Z',
  dataVersion: '1.0',
  data: {
    messageId: 'Outgoing_1',
    from: '+18005550100',
    to: '+15555555555',
    deliveryStatus: 'Delivered',
    deliveryStatusDetails: 'No error.',
    receivedTimestamp: '2031-06-01T08:00:04Z',
    tag: 'a1/u1',
  },
};

describe('parseCommunicationEvent', () => {
  it('reads the Event Grid schema and the CloudEvents schema alike', () => {
    const cloud = {
      id: 'e1',
      source: smsReport.topic,
      specversion: '1.0',
      type: SMS_DELIVERY_REPORT,
      time: '2031-06-01T08:00:05Z',
      data: smsReport.data,
    };
    const expected = {
      ok: true,
      event: {
        id: 'e1',
        type: SMS_DELIVERY_REPORT,
        time: '2031-06-01T08:00:05.000Z',
        kind: 'sms_delivery_report',
        data: { messageId: 'Outgoing_1', deliveryStatus: 'Delivered', receivedTimestamp: '2031-06-01T08:00:04Z', tag: 'a1/u1' },
      },
    };
    expect(parseCommunicationEvent(smsReport)).toEqual(expected);
    expect(parseCommunicationEvent(cloud)).toEqual(expected);
    expect(parseCommunicationEvent(JSON.stringify(smsReport))).toEqual(expected);
  });

  it('keeps only the fields it applies: no address or text travels further than it must', () => {
    const received = { ...smsReport, eventType: SMS_RECEIVED, data: { messageId: 'In_1', from: '+15555555555', to: '+18005550100', message: 'STOP', receivedTimestamp: '2031-06-01T08:00:04Z' } };
    expect(parseCommunicationEvent(received)).toMatchObject({ ok: true, event: { kind: 'sms_received', data: { from: '+15555555555', message: 'STOP' } } });
    const email = {
      ...smsReport,
      eventType: EMAIL_DELIVERY_REPORT,
      data: { sender: 'a@b.test', recipient: 'c@d.test', messageId: 'op', status: 'Bounced', deliveryStatusDetails: { statusMessage: 'c@d.test bounced' } },
    };
    const parsed = parseCommunicationEvent(email);
    expect(parsed).toMatchObject({ ok: true, event: { kind: 'email_delivery_report', data: { recipient: 'c@d.test', status: 'Bounced' } } });
    expect(JSON.stringify(parsed)).not.toContain('bounced');
  });

  it('refuses what is malformed with a reason that names the field, never the value', () => {
    const cases: [unknown, string][] = [
      [null, 'envelope: (root): invalid_union'],
      [[smsReport], 'envelope: (root): invalid_union'],
      [{ ...smsReport, eventTime: 'yesterday' }, 'envelope: eventTime: custom'],
      [{ ...smsReport, data: { ...smsReport.data, messageId: 42 } }, 'data: messageId: invalid_type'],
      [{ ...smsReport, data: { ...smsReport.data, tag: 'x\uDC00' } }, 'data: tag: custom'],
      [{ ...smsReport, data: { ...smsReport.data, deliveryStatus: 'D'.repeat(65) } }, 'data: deliveryStatus: too_big'],
    ];
    for (const [input, reason] of cases) expect(parseCommunicationEvent(input)).toMatchObject({ ok: false, reason });
    expect(JSON.stringify(parseCommunicationEvent({ ...smsReport, data: { ...smsReport.data, messageId: '+15555555555'.repeat(20) } }))).not.toContain('+1555');
  });

  it('reads the capitalised fields of Microsoft\'s samples, and numbers without "+", in both schemas', () => {
    // The shapes of the samples in Microsoft's documentation of the ACS events (older pages, SDK samples).
    const sampleReport = {
      ...smsReport,
      data: {
        MessageId: 'Outgoing_1',
        From: '18005550100',
        To: '+15555555555',
        DeliveryStatus: 'Delivered',
        DeliveryStatusDetails: 'No error.',
        DeliveryAttempts: [{ Timestamp: '2031-06-01T08:00:04Z', SegmentsSucceeded: 1, SegmentsFailed: 0 }],
        ReceivedTimestamp: '2031-06-01T08:00:04Z',
        Tag: 'a1/u1',
      },
    };
    const sampleReceived = {
      ...smsReport,
      eventType: SMS_RECEIVED,
      data: { MessageId: 'Incoming_1', From: '15555555555', To: '18005550100', Message: 'STOP', ReceivedTimestamp: '2031-06-01T08:00:04Z' },
    };
    const sampleEmail = {
      ...smsReport,
      eventType: EMAIL_DELIVERY_REPORT,
      data: { Sender: 'a@b.test', Recipient: 'c@d.test', MessageId: 'op', Status: 'Bounced', DeliveryAttemptTimestamp: '2031-06-01T08:00:04Z' },
    };
    const cloud = (event: typeof smsReport | typeof sampleReport | typeof sampleReceived | typeof sampleEmail) => ({
      id: event.id,
      source: event.topic,
      specversion: '1.0',
      type: event.eventType,
      time: event.eventTime,
      data: event.data,
    });
    for (const shape of [(event: typeof sampleReport) => event, cloud]) {
      expect(parseCommunicationEvent(shape(sampleReport))).toMatchObject({
        ok: true,
        event: { kind: 'sms_delivery_report', data: { messageId: 'Outgoing_1', deliveryStatus: 'Delivered', receivedTimestamp: '2031-06-01T08:00:04Z', tag: 'a1/u1' } },
      });
      expect(parseCommunicationEvent(shape(sampleReceived as never))).toMatchObject({
        ok: true,
        event: { kind: 'sms_received', data: { messageId: 'Incoming_1', from: '+15555555555', to: '+18005550100', message: 'STOP' } },
      });
      expect(parseCommunicationEvent(shape(sampleEmail as never))).toMatchObject({
        ok: true,
        event: { kind: 'email_delivery_report', data: { messageId: 'op', recipient: 'c@d.test', status: 'Bounced', deliveryAttemptTimestamp: '2031-06-01T08:00:04Z' } },
      });
    }
    // The current schema's camelCase with a number written with "+" reads the same.
    const received = { ...sampleReceived, data: { messageId: 'Incoming_1', from: '+1 555 555 5555', to: '+18005550100', message: 'STOP', receivedTimestamp: '2031-06-01T08:00:04Z' } };
    expect(parseCommunicationEvent(received)).toMatchObject({ ok: true, event: { data: { from: '+15555555555', to: '+18005550100' } } });
  });

  it('still refuses what is malformed in either shape, naming the field', () => {
    const received = (data: Record<string, unknown>) => ({
      ...smsReport,
      eventType: SMS_RECEIVED,
      data: { MessageId: 'Incoming_1', From: '15555555555', To: '18005550100', Message: 'STOP', ReceivedTimestamp: '2031-06-01T08:00:04Z', ...data },
    });
    const cases: [unknown, string][] = [
      [received({ From: 'Contoso' }), 'data: from: custom'],
      [received({ From: '123' }), 'data: from: custom'],
      [received({ To: '++18005550100' }), 'data: to: custom'],
      [received({ From: 15555555555 }), 'data: from: invalid_type'],
      [received({ ReceivedTimestamp: undefined }), 'data: receivedTimestamp: invalid_type'],
      // Two spellings of one field that disagree: which one was meant cannot be known.
      [received({ from: '+15555555556' }), 'data: from: ambiguous'],
      [{ ...smsReport, data: { ...smsReport.data, MessageId: 'Outgoing_2' } }, 'data: messageId: ambiguous'],
    ];
    for (const [input, reason] of cases) expect(parseCommunicationEvent(input), reason).toMatchObject({ ok: false, reason });
    // The same value twice is one value.
    expect(parseCommunicationEvent(received({ from: '15555555555' }))).toMatchObject({ ok: true });
    expect(JSON.stringify(parseCommunicationEvent(received({ From: 'canary 5555 Contoso' })))).not.toContain('canary');
  });

  it('passes other event types on as such, to be acknowledged', () => {
    expect(parseCommunicationEvent({ ...smsReport, eventType: 'Microsoft.Communication.ChatMessageReceived', data: { anything: 1 } })).toMatchObject({
      ok: true,
      event: { kind: 'other', type: 'Microsoft.Communication.ChatMessageReceived' },
    });
  });
});
