import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config';
import { currentLogContext } from './log-context';
import { scrubSecrets } from './scrub';

export type { Logger } from 'pino';

/**
 * Field names whose values are never logged, wherever they appear (first layer of redaction;
 * `scrubSecrets` is the second, on the serialized line).
 */
const SECRET_FIELDS = [
  'authorization',
  'cookie',
  'token',
  'idToken',
  'accessToken',
  'refreshToken',
  'sessionToken',
  'jwt',
  'pin',
  'password',
  'secret',
  'hash',
  'pepper',
  'connectionString',
  'email',
  'phone',
  'phoneNumber',
  'username',
  'body',
  'headers',
] as const;

const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set(SECRET_FIELDS);

/** What a secret field's value becomes. */
const CENSOR = '[REDACTED]';

/** How deep `redactSecretFields` looks into nested objects and arrays (pino's paths looked one level down). */
const REDACT_DEPTH = 4;

/**
 * The log object with the value of every secret field (`SECRET_FIELDS`, at any depth up to
 * `REDACT_DEPTH`, in plain objects and arrays) replaced by `[REDACTED]`. Objects are copied only
 * where something is replaced, so the caller's objects never change. This replaces pino's `redact`
 * paths: those walked every path on every line and cost more than the rest of a delivery's logging
 * (bench/results.md), and reached one level only.
 */
export function redactSecretFields<T>(value: T, depth = 0): T {
  if (depth > REDACT_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const redacted = redactSecretFields(item, depth + 1);
      if (redacted !== item) (copy ??= [...value])[index] = redacted;
    });
    return (copy ?? value) as T;
  }
  const prototype = Object.getPrototypeOf(value);
  // Errors and class instances go to their serializers; only plain data is walked.
  if (prototype !== Object.prototype && prototype !== null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const redacted = SECRET_FIELD_NAMES.has(key) && item !== undefined ? CENSOR : redactSecretFields(item, depth + 1);
    if (redacted !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = redacted;
  }
  return (copy ?? value) as T;
}

export interface CreateLoggerOptions {
  service: string;
  level: LogLevel;
  /** Where lines go: stdout in the app, a capture sink in tests. */
  destination?: DestinationStream;
  /** Development only: pipe lines through pino-pretty for a human reader. */
  pretty?: boolean;
}

/**
 * Creates the app's logger: one JSON object per line with `timestamp` (ISO 8601 UTC), `level` as a
 * word, `service`, `traceId`, `message` and `userId`, the last two (and `requestId` and `endpoint`
 * within an HTTP request) coming from the log context of the request chain that writes the line.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const destination = options.destination ?? (options.pretty ? prettyStream() : pino.destination({ dest: 1, sync: true }));
  return pino(
    {
      level: options.level,
      messageKey: 'message',
      errorKey: 'error',
      // `service` comes from the mixin, so a request chain can name its own without a second key.
      base: null,
      timestamp: () => `,"timestamp":"${new Date().toISOString()}"`,
      formatters: {
        // The contract allows four level words; pino's extra levels fold into their neighbours.
        level: (label) => ({ level: label === 'fatal' ? 'error' : label === 'trace' ? 'debug' : label }),
        // First layer of redaction: fields that hold secrets or personal data, by name.
        log: (object) => redactSecretFields(object),
      },
      // The same names at the top of a child logger's bindings, which the log formatter never sees.
      serializers: Object.fromEntries(SECRET_FIELDS.map((field) => [field, () => CENSOR])),
      mixin: () => {
        const context = currentLogContext();
        return {
          service: context.service ?? options.service,
          traceId: context.traceId,
          userId: context.userId,
          ...(context.requestId === undefined ? {} : { requestId: context.requestId }),
          ...(context.endpoint === undefined ? {} : { endpoint: context.endpoint }),
        };
      },
      hooks: { streamWrite: scrubSecrets },
    },
    destination,
  );
}

/** Loaded lazily: pino-pretty is a development dependency and production never asks for it. */
function prettyStream(): DestinationStream {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pretty = require('pino-pretty') as (options: object) => DestinationStream;
  return pretty({ messageKey: 'message', timestampKey: 'timestamp', ignore: 'service', colorize: true });
}

/**
 * The fields an error-level line carries for an exception: its `stack` (scrubbed like every line)
 * and its type. The message itself stays out of client answers; in the log it is part of the stack.
 */
export function errorFields(error: unknown): { stack: string; errorType: string } {
  if (error instanceof Error) {
    const causeStack = error.cause instanceof Error && error.cause.stack ? `\nCaused by: ${error.cause.stack}` : '';
    return { stack: `${error.stack ?? `${error.name}: ${error.message}`}${causeStack}`, errorType: error.name };
  }
  return { stack: new Error(String(error)).stack ?? String(error), errorType: typeof error };
}
