import type { Logger } from '../logging/logger';
import type { Telemetry } from './telemetry';

/**
 * The settings of a backend that sends telemetry out of the process. Only types are imported from
 * the backends here: their modules (and `applicationinsights`, the OpenTelemetry SDK behind them)
 * are loaded by `loadTelemetryBackend`, never at start-up.
 */
export type RemoteBackendSettings =
  | { backend: 'application-insights'; connectionString: string; serviceName: string; logger: Logger }
  | { backend: 'otlp'; endpoint: string; serviceName: string; resourceServiceName: string; logger: Logger };

export type RemoteTelemetryBackend = RemoteBackendSettings['backend'];

/** Loads a backend's module and builds the backend; rejects when either fails. */
export type TelemetryBackendLoader = (settings: RemoteBackendSettings) => Promise<Telemetry>;

/**
 * The real loader: a dynamic `import()` of the backend's module, so that its packages are required
 * only now (and, once bundled, so that they stay outside the start-up code).
 */
export const loadTelemetryBackend: TelemetryBackendLoader = async (settings) => {
  switch (settings.backend) {
    case 'application-insights': {
      const { createAppInsightsTelemetry } = await import('./app-insights.js');
      return createAppInsightsTelemetry({
        connectionString: settings.connectionString,
        serviceName: settings.serviceName,
        logger: settings.logger,
      });
    }
    case 'otlp': {
      const { createOtlpTelemetry } = await import('./otlp.js');
      return createOtlpTelemetry({
        endpoint: settings.endpoint,
        serviceName: settings.serviceName,
        resourceServiceName: settings.resourceServiceName,
        logger: settings.logger,
      });
    }
  }
};
