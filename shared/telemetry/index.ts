/**
 * The telemetry facade: the only module the app imports for telemetry. Swapping the backend
 * (Application Insights today, OpenTelemetry with an error tracker later) happens here.
 */
import type { Logger } from '../logging/logger';
import { createAppInsightsTelemetry } from './app-insights';
import { createLogOnlyTelemetry } from './log-only';
import type { Telemetry } from './telemetry';

export type { DependencyTelemetry, Telemetry, TelemetryProperties } from './telemetry';

export interface CreateTelemetryOptions {
  /** `config.appInsightsConnectionString`; without it telemetry goes to the log only. */
  connectionString?: string;
  logger: Logger;
  serviceName: string;
}

export type TelemetryBackend = 'application-insights' | 'log-only';

/** Which backend `createTelemetry` picks for these options. */
export function telemetryBackendFor(options: Pick<CreateTelemetryOptions, 'connectionString'>): TelemetryBackend {
  return options.connectionString?.trim() ? 'application-insights' : 'log-only';
}

/**
 * Creates the process's telemetry: Application Insights when a connection string is configured,
 * otherwise log lines through `logger`. Writes one info line naming the backend (never the
 * connection string).
 * @throws Error when the connection string is present but unusable (bad configuration).
 */
export function createTelemetry(options: CreateTelemetryOptions): Telemetry {
  const backend = telemetryBackendFor(options);
  const telemetry =
    backend === 'application-insights'
      ? createAppInsightsTelemetry({
          connectionString: options.connectionString?.trim() ?? '',
          serviceName: options.serviceName,
          logger: options.logger,
        })
      : createLogOnlyTelemetry({ logger: options.logger });
  options.logger.info({ telemetryBackend: backend }, 'telemetry ready');
  return telemetry;
}
