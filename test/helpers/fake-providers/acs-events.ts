import { randomUUID } from 'node:crypto';
import type { EmailDelivery, SmsDelivery } from './fake-acs';

/**
 * Azure Communication Services events as Event Grid delivers them, shaped after the documented
 * schemas (learn.microsoft.com, "Azure Communication Services as an Event Grid source": SMS
 * delivery report, SMS received, e-mail delivery report), in the Event Grid schema; `asCloudEvent`
 * gives the CloudEvents 1.0 form of the same event.
 */

export interface EventGridEvent {
  id: string;
  topic: string;
  subject: string;
  eventType: string;
  eventTime: string;
  data: Record<string, unknown>;
  dataVersion: string;
  metadataVersion: string;
}

const TOPIC = '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-test/providers/Microsoft.Communication/communicationServices/acs-test';

function event(eventType: string, subject: string, data: Record<string, unknown>, at = new Date()): EventGridEvent {
  return { id: randomUUID(), topic: TOPIC, subject, eventType, eventTime: at.toISOString(), data, dataVersion: '1.0', metadataVersion: '1' };
}

/** `Microsoft.Communication.SMSDeliveryReportReceived` for an SMS the fake ACS accepted. */
export function smsDeliveryReport(sms: SmsDelivery, deliveryStatus: 'Delivered' | 'Failed', at = new Date()): EventGridEvent {
  return event(
    'Microsoft.Communication.SMSDeliveryReportReceived',
    `/phonenumber/${String(sms.from).replace('+', '')}`,
    {
      messageId: sms.messageId,
      from: sms.from,
      to: sms.to,
      deliveryStatus,
      deliveryStatusDetails: deliveryStatus === 'Delivered' ? 'No error.' : 'Number is unreachable.',
      deliveryAttempts: [{ timestamp: at.toISOString(), segmentsSucceeded: deliveryStatus === 'Delivered' ? 1 : 0, segmentsFailed: deliveryStatus === 'Delivered' ? 0 : 1 }],
      receivedTimestamp: at.toISOString(),
      ...(typeof sms.tag === 'string' ? { tag: sms.tag } : {}),
    },
    at,
  );
}

/** `Microsoft.Communication.SMSReceived`: `from` texted `message` to the service's number. */
export function smsReceived(from: string, to: string, message: string, at = new Date()): EventGridEvent {
  return event(
    'Microsoft.Communication.SMSReceived',
    `/phonenumber/${to.replace('+', '')}`,
    { messageId: `Incoming_${randomUUID().replaceAll('-', '')}`, from, to, message, receivedTimestamp: at.toISOString() },
    at,
  );
}

export type EmailReportStatus = 'Delivered' | 'Bounced' | 'Suppressed' | 'Failed' | 'Quarantined' | 'FilteredSpam' | 'Expanded';

/** `Microsoft.Communication.EmailDeliveryReportReceived` for an e-mail the fake ACS accepted. */
export function emailDeliveryReport(email: EmailDelivery, status: EmailReportStatus, at = new Date()): EventGridEvent {
  return event(
    'Microsoft.Communication.EmailDeliveryReportReceived',
    `sender/${String(email.senderAddress)}/message/${email.operationId}`,
    {
      sender: email.senderAddress,
      recipient: email.to,
      messageId: email.operationId,
      status,
      deliveryStatusDetails: { statusMessage: status === 'Delivered' ? 'Delivered.' : `Delivery to ${email.to} failed.` },
      deliveryAttemptTimestamp: at.toISOString(),
    },
    at,
  );
}

/**
 * The same event as Microsoft's samples and older documentation show it: every `data` member
 * capitalised (`MessageId`, `From`, `DeliveryStatus`, `Tag`, nested ones too) and the phone
 * numbers of `From` and `To` without their `+`.
 */
export function asSampleShape(gridEvent: EventGridEvent): EventGridEvent {
  const capitalised = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(capitalised);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key.charAt(0).toUpperCase() + key.slice(1), capitalised(member)]));
  };
  const data = capitalised(gridEvent.data) as Record<string, unknown>;
  for (const key of ['From', 'To']) if (typeof data[key] === 'string' && gridEvent.eventType.includes('.SMS')) data[key] = (data[key] as string).replace(/^\+/, '');
  return { ...gridEvent, data };
}

/** The same event in the CloudEvents 1.0 schema. */
export function asCloudEvent(gridEvent: EventGridEvent): Record<string, unknown> {
  return {
    id: gridEvent.id,
    source: gridEvent.topic,
    specversion: '1.0',
    type: gridEvent.eventType,
    subject: gridEvent.subject,
    time: gridEvent.eventTime,
    datacontenttype: 'application/json',
    data: gridEvent.data,
  };
}

/** Event Grid's subscription validation event. */
export function subscriptionValidation(validationCode = randomUUID()): EventGridEvent {
  return event('Microsoft.EventGrid.SubscriptionValidationEvent', '', {
    validationCode,
    validationUrl: `https://rp-eastus.eventgrid.azure.net/eventsubscriptions/test/validate?id=${validationCode}`,
  });
}
