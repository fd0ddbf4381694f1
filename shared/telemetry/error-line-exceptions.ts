import { scrubSecrets } from '../logging/scrub';
import type { Telemetry, TelemetryProperties } from './telemetry';

/**
 * Error lines as exceptions: the Functions host records every stdout line at Information whatever
 * its JSON `level`, so an error the app only logs is no error to Application Insights. Every
 * error-level line therefore also goes to the telemetry facade as an exception, unless the code
 * that wrote it tracked its own exception in the same synchronous turn (the request and
 * background-function failures, provider errors: those carry the real error object).
 */

/** Line fields that are short labels, copied onto the exception (never addresses, tokens or text). */
const LABEL_FIELDS = ['errorCode', 'endpoint', 'functionName', 'channel', 'providerCode', 'status'] as const;

/** The logger's hook: called with an error line's fields and message. */
export type ErrorLineListener = (fields: Readonly<Record<string, unknown>>, message: string) => void;

export interface ErrorLineExceptions {
  /** For `createLogger({ onErrorLine })`: does nothing until `attach`. */
  onErrorLine: ErrorLineListener;
  /** The telemetry every other caller uses: its own `trackException` calls suppress the line's. */
  attach(telemetry: Telemetry): Telemetry;
}

/**
 * The bridge between the logger and the telemetry facade; the logger is built first (telemetry
 * logs through it), so the telemetry is attached afterwards.
 */
export function errorLineExceptions(): ErrorLineExceptions {
  let target: Telemetry | undefined;
  let trackedThisTurn = false;
  return {
    onErrorLine(fields, message) {
      const telemetry = target;
      // The telemetry backend's own failures: tracking them through it could loop.
      if (!telemetry || 'telemetryBackend' in fields || message.startsWith('telemetry')) return;
      const exception = lineException(fields, message);
      const properties = labelsOf(fields);
      // After the writer's own code in this turn: it may track the real error right after its line.
      queueMicrotask(() => {
        if (!trackedThisTurn) telemetry.trackException(exception, properties);
      });
    },
    attach(telemetry) {
      target = telemetry;
      return {
        ...telemetry,
        trackException(error, properties) {
          if (!trackedThisTurn) {
            trackedThisTurn = true;
            queueMicrotask(() => {
              trackedThisTurn = false;
            });
          }
          telemetry.trackException(error, properties);
        },
        // Bound: the spread copies the methods, which must still act on the backend.
        trackEvent: telemetry.trackEvent.bind(telemetry),
        trackMetric: telemetry.trackMetric.bind(telemetry),
        trackDependency: telemetry.trackDependency.bind(telemetry),
        flush: telemetry.flush.bind(telemetry),
      };
    },
  };
}

function lineException(fields: Readonly<Record<string, unknown>>, message: string): Error {
  const exception = new Error(message);
  exception.name = typeof fields.errorType === 'string' ? fields.errorType : 'ErrorLine';
  // The line's own stack (where the error was thrown), scrubbed as the line itself is.
  if (typeof fields.stack === 'string') exception.stack = scrubSecrets(fields.stack);
  return exception;
}

function labelsOf(fields: Readonly<Record<string, unknown>>): TelemetryProperties {
  const labels: Record<string, string | number> = {};
  for (const name of LABEL_FIELDS) {
    const value = fields[name];
    if (typeof value === 'string' || typeof value === 'number') labels[name] = value;
  }
  return labels;
}
