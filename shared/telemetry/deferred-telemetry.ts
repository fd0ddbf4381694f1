import { currentLogContext, runWithLogContext, type LogContext } from '../logging/log-context';
import { errorFields, type Logger } from '../logging/logger';
import { REDACTION_MARKER } from '../logging/scrub';
import type { Telemetry } from './telemetry';

export interface DeferredTelemetryOptions {
  /** The backend's name, for the `telemetry ready` and failure lines. */
  backend: string;
  /** Loads and builds the backend; called once, from `schedule`. */
  load: () => Promise<Telemetry>;
  /** What telemetry goes to when `load` fails. */
  fallback: () => Telemetry;
  logger: Logger;
  /** Calls kept while the backend loads; later ones are counted and dropped. */
  maxBuffered?: number;
  /** Starts the load later: by default on the next turn of the event loop, after function registration. */
  schedule?: (start: () => void) => void;
  /**
   * Configured values (connection string parts, endpoint) that must not reach the log even if a
   * failing backend quotes them in its error.
   */
  secrets?: readonly string[];
}

/** A few minutes of a busy start-up's items, and a bounded amount of memory if the load hangs. */
export const DEFAULT_MAX_BUFFERED = 5_000;

/** The name `telemetry ready` reports after a failed load. */
const FALLBACK_BACKEND = 'log-only';

interface BufferedCall {
  call: (telemetry: Telemetry) => void;
  /** The log context of the caller, so the replayed item keeps its trace id and service. */
  context: LogContext;
}

/**
 * A `Telemetry` that is usable at once while its backend loads in the background. Until the
 * backend is ready every call is kept (in order, with its caller's log context, up to
 * `maxBuffered`); then the calls are replayed into it and later calls go straight through. When the
 * load fails, one error line says so and telemetry goes to `fallback` instead, buffered calls
 * included. `flush()` waits for the backend, so nothing kept is lost at shutdown.
 *
 * Replayed items are stamped when they are replayed, i.e. at most the load time late.
 */
export function createDeferredTelemetry(options: DeferredTelemetryOptions): Telemetry {
  const { logger } = options;
  const maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
  const schedule = options.schedule ?? ((start: () => void) => void setImmediate(start));
  let buffer: BufferedCall[] = [];
  let dropped = 0;
  let target: Telemetry | undefined;

  const use = (telemetry: Telemetry, backend: string): void => {
    // Replayed in one synchronous run: no new call can slip in between the buffered ones.
    for (const { call, context } of buffer) {
      try {
        runWithLogContext(context, () => call(telemetry));
      } catch (error) {
        logger.warn({ errorType: errorFields(error).errorType }, 'telemetry call failed');
      }
    }
    buffer = [];
    target = telemetry;
    logger.info({ telemetryBackend: backend }, 'telemetry ready');
    if (dropped > 0) {
      logger.warn({ droppedTelemetryItems: dropped, telemetryBufferLimit: maxBuffered }, 'telemetry dropped while its backend loaded');
    }
  };

  const ready = new Promise<void>((resolve) => schedule(resolve))
    .then(() => options.load())
    .then(
      (telemetry) => use(telemetry, options.backend),
      (error: unknown) => {
        const { stack, errorType } = errorFields(error);
        logger.error(
          { errorCode: 'internal_error', telemetryBackend: options.backend, errorType, stack: withoutSecrets(stack, options.secrets ?? []) },
          'telemetry backend failed to load; telemetry goes to the log',
        );
        use(options.fallback(), FALLBACK_BACKEND);
      },
    );

  const keep = (call: (telemetry: Telemetry) => void): void => {
    if (buffer.length < maxBuffered) {
      // A copy: `identifyUser` changes the chain's context object later on.
      buffer.push({ call, context: { ...currentLogContext() } });
    } else {
      dropped += 1;
    }
  };

  return {
    trackEvent(name, properties) {
      if (target) return target.trackEvent(name, properties);
      const copy = { ...properties };
      keep((telemetry) => telemetry.trackEvent(name, copy));
    },
    trackMetric(name, value, properties) {
      if (target) return target.trackMetric(name, value, properties);
      const copy = properties && { ...properties };
      keep((telemetry) => telemetry.trackMetric(name, value, copy));
    },
    trackException(error, properties) {
      if (target) return target.trackException(error, properties);
      const copy = properties && { ...properties };
      keep((telemetry) => telemetry.trackException(error, copy));
    },
    trackDependency(dependency) {
      if (target) return target.trackDependency(dependency);
      const copy = { ...dependency, ...(dependency.properties ? { properties: { ...dependency.properties } } : {}) };
      keep((telemetry) => telemetry.trackDependency(copy));
    },
    async flush() {
      await ready;
      // `ready` always ends with a target, the fallback at worst.
      await target?.flush();
    },
  };
}

/** `text` with every configured secret (at least 6 characters, to keep the line readable) replaced. */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  return secrets
    .filter((secret) => secret.length >= 6)
    .sort((a, b) => b.length - a.length)
    .reduce((result, secret) => result.split(secret).join(REDACTION_MARKER), text);
}
