import { randomUUID } from 'node:crypto';
import type { TriggerMetadata } from '@azure/functions';
import type { QueueSettings } from './host-json';

/** The fields of a received message the host uses (a subset of the SDK's `ReceivedMessageItem`). */
export interface ReceivedMessage {
  messageId: string;
  popReceipt: string;
  messageText: string;
  dequeueCount: number;
  insertedOn: Date;
  expiresOn: Date;
  nextVisibleOn: Date;
}

export type DecodedMessage = { ok: true; text: string } | { ok: false; reason: string };

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The message text as the host's queue extension reads it. With `base64` (the default) the text
 * must be strict base64, as .NET's decoder requires; Node's own decoder would silently skip bad
 * characters and hand the function garbage.
 */
export function decodeMessageText(raw: string, encoding: QueueSettings['messageEncoding']): DecodedMessage {
  if (encoding === 'none') return { ok: true, text: raw };
  const compact = raw.replace(/\s+/g, '');
  if (!STRICT_BASE64.test(compact)) return { ok: false, reason: 'not valid base64' };
  return { ok: true, text: Buffer.from(compact, 'base64').toString('utf8') };
}

/** How the worker turns a string input into the handler's argument: JSON when it parses, else the string. */
export function queueInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * `context.triggerMetadata` of a queue invocation: the host's binding data (`QueueTrigger`, `Id`,
 * `DequeueCount`, the three times, `PopReceipt`, `sys`) with keys camel-cased by the library.
 */
export function queueTriggerMetadata(message: ReceivedMessage, text: string, functionName: string, now: Date): TriggerMetadata {
  return {
    queueTrigger: toCamelCaseValue(queueInput(text)),
    dequeueCount: message.dequeueCount,
    expirationTime: dateTimeOffsetJson(message.expiresOn),
    id: message.messageId,
    insertionTime: dateTimeOffsetJson(message.insertedOn),
    nextVisibleTime: dateTimeOffsetJson(message.nextVisibleOn),
    popReceipt: message.popReceipt,
    sys: { methodName: functionName, utcNow: now.toISOString(), randGuid: randomUUID() },
  };
}

/**
 * A time as the host writes the queue binding's `DateTimeOffset`s (Newtonsoft's default format:
 * fraction digits only when there are any, trailing zeros dropped, offset `+00:00`, never `Z`).
 */
export function dateTimeOffsetJson(date: Date): string {
  const [seconds = '', millis = '000'] = date.toISOString().slice(0, -1).split('.');
  const fraction = millis.replace(/0+$/, '');
  return `${seconds}${fraction ? `.${fraction}` : ''}+00:00`;
}

/** The library's camel-casing of trigger metadata: first letter of every key lower-cased, recursively. */
function toCamelCaseValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(toCamelCaseValue);
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key.charAt(0).toLowerCase() + key.slice(1), toCamelCaseValue(inner)]),
  );
}
