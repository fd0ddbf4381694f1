import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import { scrubSecrets } from '../logging/scrub';
import {
  AUDIT_EVENT_TYPES,
  AUDIT_OUTCOMES,
  AUDIT_REASONS,
  type AuditDetails,
  type AuditEntry,
  type AuditEventType,
  type AuditOutcome,
  type AuditReason,
} from './audit-event';

/**
 * Checks what goes into an audit row. A bad entry is a programming bug (the caller chose what to
 * record), so it throws instead of returning: better a failed request in development than a secret
 * or a child's personal data in an append-only table that nobody can clean afterwards.
 */

/** Thrown for an audit entry that must not be written; the message names the field, never its value. */
export class InvalidAuditEntryError extends Error {
  override readonly name = 'InvalidAuditEntryError';
}

/**
 * Words that, anywhere in a `details` key, mean the value is (or may be) a secret or personal
 * data. Keys are split into words (`pinHash` → pin, hash; `e_mail` → e, mail) and adjacent words
 * are joined too (`userName` → username), so spelling variants are caught.
 */
export const FORBIDDEN_DETAIL_KEY_WORDS: ReadonlySet<string> = new Set([
  // Credentials and secrets.
  'token', 'jwt', 'bearer', 'authorization', 'cookie', 'pin', 'password', 'passwd', 'pwd',
  'passcode', 'passphrase', 'secret', 'pepper', 'salt', 'hash', 'credential', 'credentials', 'apikey',
  'accesskey', 'privatekey', 'connectionstring', 'signature',
  // Personal data.
  'email', 'mail', 'phone', 'phonenumber', 'msisdn', 'username', 'name', 'surname', 'address', 'ip',
  'birth', 'birthdate', 'birthday', 'dob', 'location',
  // Content and raw traffic.
  'body', 'content', 'title', 'text', 'message', 'header', 'headers', 'url',
]);

const MAX_DETAIL_KEYS = 20;
const MAX_DETAIL_STRING_LENGTH = 200;
const DETAIL_KEY = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** The words of an identifier-like key, lower-cased, plus each adjacent pair and the whole run joined. */
export function keyWords(key: string): string[] {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_]+/)
    .filter((word) => word.length > 0)
    .map((word) => word.toLowerCase());
  const pairs = words.slice(1).map((word, index) => `${words[index]}${word}`);
  return [...words, ...pairs, words.join('')];
}

const platformId = () => z.string().check(z.minLength(1), z.maxLength(64));

// Built on the first audit write, not at import (`lazySchema`): it keeps zod off the cold start.
const entrySchema = lazySchema(() =>
  z.strictObject({
    eventType: z.enum(AUDIT_EVENT_TYPES),
    outcome: z.enum(AUDIT_OUTCOMES),
    actorUserId: z.nullish(platformId()),
    subjectUserId: z.nullish(platformId()),
    targetType: z.nullish(z.string().check(z.regex(/^[a-z][a-z_]{0,63}$/))),
    targetId: z.nullish(z.string().check(z.minLength(1), z.maxLength(128))),
    reason: z.nullish(z.enum(AUDIT_REASONS)),
    traceId: z.nullish(z.string().check(z.minLength(1), z.maxLength(64))),
    details: z.nullish(z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))),
  }),
);

/** An entry ready for the row: every optional field present (null when absent), details as JSON text. */
export interface AuditRowValues {
  eventType: AuditEventType;
  outcome: AuditOutcome;
  actorUserId: string | null;
  subjectUserId: string | null;
  targetType: string | null;
  targetId: string | null;
  reason: AuditReason | null;
  traceId: string | null;
  details: string | null;
}

/**
 * Validates `entry` and turns it into row values; string values of `details` pass through
 * `scrubSecrets`. Throws `InvalidAuditEntryError` for an unknown event type, a field of the wrong
 * shape, nested details, or a details key that names a secret or personal data.
 */
export function toAuditRowValues(entry: AuditEntry): AuditRowValues {
  const parsed = entrySchema.safeParse(entry);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || 'entry'))];
    throw new InvalidAuditEntryError(`Invalid audit entry: ${fields.join(', ')}`);
  }
  const value = parsed.data;
  for (const field of ['actorUserId', 'subjectUserId', 'targetId', 'traceId'] as const) {
    const text = value[field];
    if (text && scrubSecrets(text) !== text) {
      throw new InvalidAuditEntryError(`Audit entry field ${field} looks like a secret or personal data`);
    }
  }
  return {
    eventType: value.eventType,
    outcome: value.outcome,
    actorUserId: value.actorUserId ?? null,
    subjectUserId: value.subjectUserId ?? null,
    targetType: value.targetType ?? null,
    targetId: value.targetId ?? null,
    reason: value.reason ?? null,
    traceId: value.traceId ?? null,
    details: value.details ? JSON.stringify(checkedDetails(value.details)) : null,
  };
}

function checkedDetails(details: AuditDetails): AuditDetails {
  const entries = Object.entries(details);
  if (entries.length > MAX_DETAIL_KEYS) {
    throw new InvalidAuditEntryError(`Audit details hold more than ${MAX_DETAIL_KEYS} keys`);
  }
  const checked: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of entries) {
    if (!DETAIL_KEY.test(key)) throw new InvalidAuditEntryError(`Audit details key "${key.slice(0, 64)}" is not an identifier`);
    const forbidden = keyWords(key).find((word) => FORBIDDEN_DETAIL_KEY_WORDS.has(word));
    if (forbidden) {
      throw new InvalidAuditEntryError(`Audit details key "${key}" names a secret or personal data (${forbidden})`);
    }
    if (typeof value === 'string' && value.length > MAX_DETAIL_STRING_LENGTH) {
      throw new InvalidAuditEntryError(`Audit details value of "${key}" is longer than ${MAX_DETAIL_STRING_LENGTH} characters`);
    }
    checked[key] = typeof value === 'string' ? scrubSecrets(value) : value;
  }
  return checked;
}
