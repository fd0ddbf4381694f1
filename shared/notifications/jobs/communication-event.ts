import * as z from 'zod/mini';
import { canonicalPhone } from '../../validation/contact-address';
import { lazySchema, type LazySchema } from '../../validation/lazy-schema';
import { parseJson } from '../providers/provider-http';

/**
 * The Azure Communication Services events the `communication-events` function takes, read from
 * what the Event Grid trigger hands over: an event in the Event Grid schema (`id`, `eventType`,
 * `eventTime`, `data`, ...) or in the CloudEvents 1.0 schema (`id`, `type`, `time`, `data`,
 * `specversion`). Field names and values follow the documented ACS event shapes
 * (learn.microsoft.com, "Azure Communication Services as an Event Grid source"), read as providers
 * send them: the current schema's camelCase (`messageId`) and the capitalised names of Microsoft's
 * samples and older documentation (`MessageId`, `From`, `DeliveryStatus`, `Tag`) alike, and phone
 * numbers in E.164 with or without the `+` the samples leave out. Addresses, numbers and message
 * texts pass through here to be applied; none of them is ever logged.
 */

export const SMS_DELIVERY_REPORT = 'Microsoft.Communication.SMSDeliveryReportReceived';
export const SMS_RECEIVED = 'Microsoft.Communication.SMSReceived';
export const EMAIL_DELIVERY_REPORT = 'Microsoft.Communication.EmailDeliveryReportReceived';

/** The event types the function applies; others are acknowledged and left alone. */
export const COMMUNICATION_EVENT_TYPES = [SMS_DELIVERY_REPORT, SMS_RECEIVED, EMAIL_DELIVERY_REPORT] as const;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * I-JSON text (RFC 7493): no lone surrogates, bounded. The schemas below are `zod/mini` and built on
 * first use (`lazySchema`), so they cost nothing at a cold start.
 */
const text = (max: number, min = 0) =>
  z.string().check(
    z.minLength(min),
    z.maxLength(max),
    z.refine((value) => !LONE_SURROGATE.test(value), 'not well-formed Unicode'),
  );
/**
 * A date-time SQL Server's datetime2 and the app can hold: years 2000 to 2999. Anything else is a
 * malformed event, refused here rather than failing the statement (and being retried) later.
 */
const instant = () =>
  text(64).check(
    z.refine((value) => {
      const at = Date.parse(value);
      return !Number.isNaN(at) && at >= Date.UTC(2000, 0, 1) && at < Date.UTC(3000, 0, 1);
    }, 'not a date-time'),
  );

/**
 * An E.164 number as ACS reports it, `+15555555555` or (in its samples) `15555555555`, in the
 * canonical form the opt-out list keys on; anything else (a sender name, a short code) is malformed.
 */
function reportedPhone(raw: string): string | undefined {
  const value = raw.trim();
  return canonicalPhone(value) ?? (value.startsWith('+') ? undefined : canonicalPhone(`+${value}`));
}

const phone = () =>
  z.pipe(
    text(64, 1).check(z.refine((value) => reportedPhone(value) !== undefined, 'not an E.164 phone number')),
    z.transform((value: string) => reportedPhone(value) ?? value),
  );

const envelopeSchema = lazySchema(() =>
  z.union([
    z.object({ id: text(128, 1), eventType: text(256, 1), eventTime: instant(), data: z.unknown() }),
    z.object({ id: text(128, 1), type: text(256, 1), time: z.optional(instant()), specversion: z.literal('1.0'), data: z.unknown() }),
  ]),
);

const smsDeliveryReportSchema = lazySchema(() =>
  z.object({
    messageId: text(128, 1),
    deliveryStatus: text(64, 1),
    receivedTimestamp: z.optional(instant()),
    tag: z.optional(text(256)),
  }),
);

const smsReceivedSchema = lazySchema(() =>
  z.object({
    messageId: text(128, 1),
    from: phone(),
    to: phone(),
    message: text(4096),
    receivedTimestamp: instant(),
  }),
);

const emailDeliveryReportSchema = lazySchema(() =>
  z.object({
    messageId: text(128, 1),
    recipient: text(320, 1),
    status: text(64, 1),
    deliveryAttemptTimestamp: z.optional(instant()),
  }),
);

export type CommunicationEvent = { id: string; type: string; time: string } & (
  | { kind: 'sms_delivery_report'; data: z.infer<ReturnType<typeof smsDeliveryReportSchema.schema>> }
  | { kind: 'sms_received'; data: z.infer<ReturnType<typeof smsReceivedSchema.schema>> }
  | { kind: 'email_delivery_report'; data: z.infer<ReturnType<typeof emailDeliveryReportSchema.schema>> }
  | { kind: 'other' }
);

export type ParsedCommunicationEvent =
  | { ok: true; event: CommunicationEvent }
  /** `reason` names what is wrong (a field path), never a value; `type` when the envelope was readable. */
  | { ok: false; reason: string; type?: string };

/**
 * Reads one trigger input; a malformed event is refused with the reason, never thrown.
 * @param receivedAt the event's time when it carries none (CloudEvents' `time` is optional).
 */
export function parseCommunicationEvent(input: unknown, receivedAt: Date = new Date(0)): ParsedCommunicationEvent {
  const envelope = envelopeSchema.safeParse(typeof input === 'string' ? parseJson(input) : input);
  if (!envelope.success) return { ok: false, reason: `envelope: ${problemOf(envelope.error)}` };
  const raw = envelope.data;
  const type = 'eventType' in raw ? raw.eventType : raw.type;
  const when = 'eventType' in raw ? raw.eventTime : raw.time;
  const base = { id: raw.id, type, time: when ? new Date(when).toISOString() : receivedAt.toISOString() };
  switch (type) {
    case SMS_DELIVERY_REPORT: {
      const parsed = parseData(smsDeliveryReportSchema, raw.data);
      return parsed.success ? { ok: true, event: { ...base, kind: 'sms_delivery_report', data: parsed.data } } : refused(type, parsed);
    }
    case SMS_RECEIVED: {
      const parsed = parseData(smsReceivedSchema, raw.data);
      return parsed.success ? { ok: true, event: { ...base, kind: 'sms_received', data: parsed.data } } : refused(type, parsed);
    }
    case EMAIL_DELIVERY_REPORT: {
      const parsed = parseData(emailDeliveryReportSchema, raw.data);
      return parsed.success ? { ok: true, event: { ...base, kind: 'email_delivery_report', data: parsed.data } } : refused(type, parsed);
    }
    default:
      return { ok: true, event: { ...base, kind: 'other' } };
  }
}

type DataSchema = LazySchema<z.ZodMiniObject<z.core.$ZodShape>>;

/**
 * Parses an event's `data` with its documented fields found whatever their case (`MessageId` is
 * `messageId`); other members are left out. Two spellings of one field that disagree are
 * malformed (which one ACS meant cannot be known), reported like any other malformed field.
 */
function parseData<S extends DataSchema>(schema: S, data: unknown): ReturnType<S['safeParse']> | { success: false; reason: string } {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return schema.safeParse(data) as ReturnType<S['safeParse']>;
  const documented = new Map(Object.keys(schema.schema().shape).map((name) => [name.toLowerCase(), name]));
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    const name = documented.get(key.toLowerCase());
    if (name === undefined) continue;
    if (Object.hasOwn(fields, name) && fields[name] !== value) return { success: false, reason: `${name}: ambiguous` };
    fields[name] = value;
  }
  return schema.safeParse(fields) as ReturnType<S['safeParse']>;
}

function refused(type: string, failure: { error: z.core.$ZodError } | { reason: string }): ParsedCommunicationEvent {
  return { ok: false, type, reason: `data: ${'reason' in failure ? failure.reason : problemOf(failure.error)}` };
}

/** The first problem as `path: message` (zod's messages name the expected type, never the value). */
function problemOf(error: z.core.$ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  return `${issue.path.join('.') || '(root)'}: ${issue.code}`;
}
