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

  it('passes other event types on as such, to be acknowledged', () => {
    expect(parseCommunicationEvent({ ...smsReport, eventType: 'Microsoft.Communication.ChatMessageReceived', data: { anything: 1 } })).toMatchObject({
      ok: true,
      event: { kind: 'other', type: 'Microsoft.Communication.ChatMessageReceived' },
    });
  });
});
