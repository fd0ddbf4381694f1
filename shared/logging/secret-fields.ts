import { REDACTION_MARKER } from './scrub';

/**
 * Field names whose value is never logged, whatever it holds: credentials and hashes, request
 * parts that carry them, and personal data no pattern recognises by its content (a child's
 * username looks like any other word).
 */
const ALWAYS_CENSORED = [
  'authorization',
  'Authorization',
  'proxy-authorization',
  'cookie',
  'Cookie',
  'cookies',
  'set-cookie',
  'Set-Cookie',
  'token',
  'idToken',
  'id_token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'sessionToken',
  'pushToken',
  'jwt',
  'pin',
  'password',
  'secret',
  'clientSecret',
  'client_secret',
  'apiKey',
  'accessKey',
  'accountKey',
  'hash',
  'pepper',
  'connectionString',
  'username',
  'body',
  'headers',
] as const;

/** True when a contact field's value cannot be the contact: it is logged as it is. */
type KeepsValue = (value: unknown) => boolean;

const notAnAddress: KeepsValue = (value) =>
  value === null || typeof value === 'boolean' || (typeof value === 'string' && !value.includes('@'));
const notANumber: KeepsValue = (value) =>
  value === null || typeof value === 'boolean' || (typeof value === 'string' && !/\d/.test(value));

/**
 * Contact fields: their name says what they may hold, not that they hold it. `email: 'acs'` (the
 * provider chosen for the channel) or `email: true` (a preference) is logged; an address, a number,
 * a list or an object under the name is censored. An address under any other name is the
 * scrubber's (`scrubSecrets`), which finds it by its shape.
 */
const CONTACT_FIELDS: Readonly<Record<string, KeepsValue>> = {
  email: notAnAddress,
  phone: notANumber,
  phoneNumber: notANumber,
};

/** One lookup per key decides: censor, check the value, or walk on. */
const FIELD_RULES: ReadonlyMap<string, 'censor' | KeepsValue> = new Map<string, 'censor' | KeepsValue>([
  ...ALWAYS_CENSORED.map((name) => [name, 'censor'] as const),
  ...Object.entries(CONTACT_FIELDS),
]);

/**
 * How deep the walk goes below the log object. pino prints any depth (`JSON.stringify`), so a
 * deeper object is printed as `[Object]` (`[Array]`) rather than unread.
 */
const MAX_DEPTH = 8;

/** Objects and arrays walked per log object at most; the rest print as `[Object]` (`[Array]`): a huge or cyclic graph costs a bounded walk. */
const MAX_NODES = 1000;

let nodesLeft = MAX_NODES;

function tooDeep(value: object): string {
  return Array.isArray(value) ? '[Array]' : '[Object]';
}

/** The value of field `key` as it may be logged. */
function redactField(key: string, value: unknown, depth: number): unknown {
  const rule = FIELD_RULES.get(key);
  if (rule === undefined) return redactValue(value, depth);
  if (value === undefined) return value;
  return rule !== 'censor' && rule(value) ? value : REDACTION_MARKER;
}

/** @param skipKey a field of this object (not of those below it) that is left as it is. */
function redactValue(value: unknown, depth: number, skipKey?: string): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_DEPTH || nodesLeft <= 0) return tooDeep(value);
  nodesLeft -= 1;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      const redacted = redactValue(item, depth + 1);
      if (redacted !== item) (copy ??= [...value])[index] = redacted;
    }
    return copy ?? value;
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  // JSON.stringify prints what toJSON returns (a Date's string, a Buffer's bytes, a class's own view).
  if (typeof toJSON === 'function') return redactValue(toJSON.call(value), depth + 1);
  // Plain objects, class instances and errors alike: JSON.stringify prints their own enumerable properties.
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (key === skipKey || !Object.prototype.hasOwnProperty.call(record, key)) continue;
    const item = record[key];
    const redacted = redactField(key, item, depth + 1);
    if (redacted !== item) (copy ??= { ...record })[key] = redacted;
  }
  return copy ?? value;
}

/**
 * `value` as it may be logged: every field named in `ALWAYS_CENSORED`, and every contact field
 * holding what may be a contact, replaced by `[REDACTED]` at any depth pino prints, in plain
 * objects, arrays, class instances and errors. Objects are copied only where something changes, so
 * the caller's objects never do, and a line with nothing to redact allocates nothing.
 * @param skipKey a top-level field left as it is (the error key: its serializer redacts what it builds).
 */
export function redactSecretFields<T>(value: T, skipKey?: string): T {
  nodesLeft = MAX_NODES;
  return redactValue(value, 0, skipKey) as T;
}
