import type { Logger } from '../logging/logger';
import type { Telemetry } from './telemetry';
import { scrubProperties } from './telemetry-properties';

export interface LogOnlyTelemetryOptions {
  logger: Logger;
}

/**
 * The default backend when neither an OTLP endpoint nor an Application Insights connection string
 * is configured, and the fallback when one of those fails to load: telemetry becomes log lines, so
 * development and tests still see what would have been sent. Synchronous and cheap: it is never
 * deferred like the remote backends.
 *
 * - events: `info` lines with the `event` name and its `properties`, because custom events are
 *   rare, business-level facts (a notification delivered, a sign-in refused);
 * - metrics and dependency calls: `debug` lines, because they come with every request and would
 *   drown the info level;
 * - exceptions: nothing. The code that caught the error has already written the error line with
 *   its stack (see `errorFields`); a second line would only double the count of errors.
 *
 * Properties are nested under `properties` so that they never overwrite the line's own fields
 * (`traceId`, `userId`, `message`), and their values are scrubbed like in every backend.
 */
export function createLogOnlyTelemetry(options: LogOnlyTelemetryOptions): Telemetry {
  const { logger } = options;
  return {
    trackEvent(name, properties) {
      logger.info({ event: name, properties: scrubProperties(properties) }, 'telemetry event');
    },
    trackMetric(name, value, properties) {
      logger.debug({ metric: name, value, properties: scrubProperties(properties) }, 'telemetry metric');
    },
    trackException() {
      // Deliberately empty: the caller logged the error line already.
    },
    trackDependency(dependency) {
      logger.debug(
        {
          dependency: dependency.name,
          dependencyType: dependency.dependencyType,
          target: dependency.target,
          // The log-line schema wants whole milliseconds.
          durationMs: Math.round(dependency.durationMs),
          success: dependency.success,
          resultCode: dependency.resultCode,
          properties: scrubProperties(dependency.properties),
        },
        'telemetry dependency',
      );
    },
    flush() {
      return Promise.resolve();
    },
  };
}
