import type { DestinationStream, LogFn, Logger } from 'pino';
import type { LogLevel } from '../config';
import { currentLogContext, type LogContext } from './log-context';
import { scrubSecrets } from './scrub';
import { redactSecretFields } from './secret-fields';

export type { Logger } from 'pino';
export { redactSecretFields } from './secret-fields';

/** pino's key for an error: `logger.error(err)` and `{ error: err }` go through its serializer. */
const ERROR_KEY = 'error';

/** The line fields a request chain's log context supplies, unless the line's own fields name them. */
const CONTEXT_KEYS = ['service', 'traceId', 'userId', 'requestId', 'endpoint'] as const;
type ContextKey = (typeof CONTEXT_KEYS)[number];
type ContextValues = Partial<Record<ContextKey, string | null>>;

/**
 * The JSON of one context's fields, kept while they stay the same: a request writes many lines and
 * its fields are serialized and scrubbed once, not per line (`userId` changes when the request is
 * authenticated, and then the entry is rebuilt).
 */
interface ContextJson extends ContextValues {
  json: string;
}

const CLEAN_BINDINGS = Symbol('clean bindings');

type Pino = typeof import('pino').pino;
type PinoSymbols = Pino['symbols'];

let pinoModule: Pino | undefined;

/**
 * pino, required when the first logger is made rather than when this module loads: most modules
 * import this one (`errorFields`), and a cold start registers the functions before the app's start
 * hook makes its logger, so loading pino does not add to the time until registration is done.
 */
function loadPino(): Pino {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  pinoModule ??= (require('pino') as { pino: Pino }).pino;
  return pinoModule;
}

/** pino's internals this module builds lines with (pino.symbols exists for integrations like this one). */
type PinoInternals = {
  /** Builds a line from the fields object, message, level number and the raw text after the level. */
  [K in PinoSymbols['asJsonSym']]: (this: PinoInternals, obj: object, msg: unknown, num: number, time: string) => string;
} & {
  /** The level's opening of a line, `{"level":"info"`, by level number. */
  [K in PinoSymbols['lsCacheSym']]: Record<number, string>;
} & {
  /** A child logger's bindings as JSON text, `,"key":value…`. */
  [K in PinoSymbols['chindingsSym']]: string;
} & {
  /** The bindings text `redactBindings` last made: while it is the one in use, it is clean. */
  [CLEAN_BINDINGS]?: string;
};

export interface CreateLoggerOptions {
  service: string;
  level: LogLevel;
  /** Where lines go: stdout in the app, a capture sink in tests. */
  destination?: DestinationStream;
  /** Development only: pipe lines through pino-pretty for a human reader. */
  pretty?: boolean;
  /** Told of every error-level line (`error-line-exceptions.ts` makes them telemetry exceptions). */
  onErrorLine?: (fields: Readonly<Record<string, unknown>>, message: string) => void;
}

/** pino's number of the `error` level; `fatal` (60) folds into it. */
const ERROR_LEVEL = 50;

/**
 * Creates the app's logger: one JSON object per line with `timestamp` (ISO 8601 UTC), `level` as a
 * word, `service`, `traceId`, `message` and `userId`, the last two (and `requestId` and `endpoint`
 * within an HTTP request) coming from the log context of the request chain that writes the line.
 *
 * Redaction comes in two layers: secret and personal fields by name (`redactSecretFields`, on the
 * line's fields, a child's bindings and an error's own properties), then `scrubSecrets` on the text
 * of everything the line holds. The line's opening (level, timestamp, context fields, bindings) is
 * built or scrubbed once per value, so each line scrubs only the text its own fields added.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const pino = loadPino();
  const destination = options.destination ?? (options.pretty ? prettyStream() : pino.destination({ dest: 1, sync: true }));
  const logger = pino(
    {
      level: options.level,
      messageKey: 'message',
      errorKey: ERROR_KEY,
      // `service` and the other context fields are written by `writeLineWithContext`, like the timestamp.
      base: null,
      timestamp: false,
      formatters: {
        // The contract allows four level words; pino's extra levels fold into their neighbours.
        level: (label) => ({ level: label === 'fatal' ? 'error' : label === 'trace' ? 'debug' : label }),
        log: (object) => redactSecretFields(object, ERROR_KEY),
      },
      serializers: { [ERROR_KEY]: (error: unknown) => redactSecretFields(pino.stdSerializers.err(error as Error)) },
      ...(options.onErrorLine ? { hooks: { logMethod: errorLineHook(options.onErrorLine) } } : {}),
    },
    destination,
  );
  writeLineWithContext(logger as unknown as PinoInternals, options.service);
  return logger;
}

/**
 * Wraps pino's line builder (shared by every child, which inherits it): the text after the level
 * is the timestamp and the context fields, and the finished line is scrubbed from where the text
 * of the line's own fields begins. Nothing in the opening needs it: the level and timestamp are
 * the logger's, the context and bindings JSON were scrubbed when built, and a pattern never spans
 * the comma between two fields.
 */
function writeLineWithContext(logger: PinoInternals, service: string): void {
  const { symbols } = loadPino();
  const buildLine = logger[symbols.asJsonSym];
  logger[symbols.asJsonSym] = function asJson(obj, msg, num) {
    // A new child's bindings (or ones `setBindings` changed) are redacted by the first line that carries them.
    if (this[symbols.chindingsSym] !== this[CLEAN_BINDINGS]) redactBindings(this, symbols);
    const opening = timestampJson() + contextJson(currentLogContext(), service, obj as Partial<Record<string, unknown>>);
    const line = buildLine.call(this, obj, msg, num, opening);
    const clean = (this[symbols.lsCacheSym][num]?.length ?? 0) + opening.length + this[symbols.chindingsSym].length;
    const rest = line.slice(clean);
    const scrubbed = scrubSecrets(rest);
    return scrubbed === rest ? line : line.slice(0, clean) + scrubbed;
  };
}

let timestampMs = Number.NaN;
let timestampText = '';

/** `,"timestamp":"…"`, formatted once per millisecond however many lines share it. */
function timestampJson(): string {
  const now = Date.now();
  if (now !== timestampMs) {
    timestampMs = now;
    timestampText = `,"timestamp":"${new Date(now).toISOString()}"`;
  }
  return timestampText;
}

const contextJsonCache = new WeakMap<LogContext, ContextJson>();
/** The last context written for: a burst of lines from one chain skips the WeakMap. */
let lastContext: LogContext | undefined;
let lastContextJson: ContextJson | undefined;

/**
 * The context fields as JSON text, `,"service":…,"traceId":…,"userId":…[,"requestId":…,"endpoint":…]`,
 * less any the line's own fields name (those win, as one key each, as they did over pino's mixin).
 */
function contextJson(context: LogContext, defaultService: string, fields: Partial<Record<string, unknown>>): string {
  const service = context.service ?? defaultService;
  if (
    fields.service !== undefined ||
    fields.traceId !== undefined ||
    fields.userId !== undefined ||
    fields.requestId !== undefined ||
    fields.endpoint !== undefined
  ) {
    return serializeContext({ ...context, service }, fields);
  }
  let cached = context === lastContext ? lastContextJson : contextJsonCache.get(context);
  if (
    cached?.service !== service ||
    cached.traceId !== context.traceId ||
    cached.userId !== context.userId ||
    cached.requestId !== context.requestId ||
    cached.endpoint !== context.endpoint
  ) {
    const values: ContextValues = {
      service,
      traceId: context.traceId,
      userId: context.userId,
      requestId: context.requestId,
      endpoint: context.endpoint,
    };
    cached = { ...values, json: serializeContext(values, {}) };
    contextJsonCache.set(context, cached);
  }
  lastContext = context;
  lastContextJson = cached;
  return cached.json;
}

function serializeContext(values: ContextValues, fields: Partial<Record<string, unknown>>): string {
  let json = '';
  for (const key of CONTEXT_KEYS) {
    const value = values[key];
    // requestId and endpoint only within an HTTP request; userId is null until someone is known.
    if (fields[key] !== undefined || (value === undefined && key !== 'userId')) continue;
    json += `,"${key}":${JSON.stringify(value ?? null)}`;
  }
  return scrubSecrets(json);
}

/**
 * Replaces a logger's bindings (its parents' included) by the same with secret fields redacted and
 * secrets scrubbed: done once per set of bindings, so lines need not scrub them again.
 */
function redactBindings(logger: PinoInternals, symbols: PinoSymbols): void {
  const bindings = logger[symbols.chindingsSym];
  let clean = bindings;
  if (bindings.length > 0) {
    const parsed = JSON.parse(`{${bindings.slice(1)}}`) as Record<string, unknown>;
    const redacted = redactSecretFields(parsed);
    clean = scrubSecrets(redacted === parsed ? bindings : `,${JSON.stringify(redacted).slice(1, -1)}`);
  }
  logger[symbols.chindingsSym] = clean;
  logger[CLEAN_BINDINGS] = clean;
}

/** pino's `logMethod` hook: tells `listener` of each error-level line, then writes it as usual. */
function errorLineHook(listener: NonNullable<CreateLoggerOptions['onErrorLine']>) {
  return function logMethod(this: Logger, args: Parameters<LogFn>, method: LogFn, level: number): void {
    if (level >= ERROR_LEVEL) {
      const [first, second] = args as unknown[];
      const fields = typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : {};
      const message = typeof first === 'string' ? first : typeof second === 'string' ? second : '';
      // A listener's failure must never cost the line.
      try {
        listener(fields, message);
      } catch {
        // The line below is the record that matters.
      }
    }
    method.apply(this, args);
  };
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
