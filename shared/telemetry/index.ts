/**
 * The telemetry facade: the only module the app imports for telemetry. Swapping the backend
 * (OpenTelemetry over OTLP, Application Insights, or the log) happens here.
 *
 * The remote backends cost seconds and thousands of modules to load (`applicationinsights` brings
 * the whole OpenTelemetry Node SDK), so they never run on the main thread: the facade is returned
 * at once, starts a worker thread on the next turn of the event loop that loads the SDK and owns
 * its exporters, and posts every call to it through its message port (`worker-telemetry.ts`,
 * `telemetry-worker.ts`). Only `import type` of the backend modules is allowed in this file and in
 * anything else the main thread imports.
 */
import type { LogLevel } from '../config';
import type { Logger } from '../logging/logger';
import { assertAppInsightsConnectionString } from '../settings/app-insights-connection';
import { createDeferredTelemetry } from './deferred-telemetry';
import type { RemoteBackendSettings, TelemetryBackendLoader } from './load-backend';
import { createLogOnlyTelemetry } from './log-only';
import { createWorkerTelemetry } from './worker-telemetry';
import { assertOtlpEndpoint } from './otlp-endpoint';
import type { Telemetry } from './telemetry';

export type { DependencyTelemetry, Telemetry, TelemetryProperties } from './telemetry';
export type { TelemetryBackendLoader } from './load-backend';

export interface CreateTelemetryOptions {
  /** `config.appInsightsConnectionString`. */
  connectionString?: string;
  /** `config.otlp`: `OTEL_EXPORTER_OTLP_ENDPOINT` and the resource's service name; wins over `connectionString`. */
  otlp?: { endpoint: string; serviceName?: string };
  logger: Logger;
  /** The `service` property of every item, and the resource's service name unless `otlp` names one. */
  serviceName: string;
  /**
   * Tests load a backend of their own on the main thread instead (`deferred-telemetry.ts`: calls kept
   * until it is loaded); by default the backend runs in a worker thread.
   */
  loadBackend?: TelemetryBackendLoader;
  /** Tests choose when the load (or the worker) starts; by default on the next turn of the event loop. */
  schedule?: (start: () => void) => void;
  /** Calls kept while the backend loads (default `DEFAULT_MAX_BUFFERED`). */
  maxBuffered?: number;
  /** The longest the worker's `flush()` waits (default `WORKER_FLUSH_TIMEOUT_MS`). */
  flushTimeoutMs?: number;
}

export type TelemetryBackend = 'otlp' | 'application-insights' | 'log-only';

/**
 * Which backend `createTelemetry` picks: OTLP when an endpoint is configured (even if Application
 * Insights is too: the OpenTelemetry collector is the deliberate, newer choice), else Application
 * Insights when a connection string is, else the log.
 */
export function telemetryBackendFor(options: Pick<CreateTelemetryOptions, 'connectionString' | 'otlp'>): TelemetryBackend {
  if (options.otlp?.endpoint.trim()) return 'otlp';
  return options.connectionString?.trim() ? 'application-insights' : 'log-only';
}

/**
 * Creates the process's telemetry (see `telemetryBackendFor`), synchronously. A remote backend is
 * loaded in the background; its `telemetry ready` info line (with `telemetryBackend`) is written
 * when it is actually ready, or an error line and the log backend if it fails to load. The log
 * backend is ready at once. No line ever quotes the connection string or the endpoint.
 * @throws Error when the chosen backend's setting is present but unusable (bad configuration).
 */
export function createTelemetry(options: CreateTelemetryOptions): Telemetry {
  const { logger } = options;
  const settings = remoteBackendSettings(options);
  if (!settings) {
    const telemetry = createLogOnlyTelemetry({ logger });
    logger.info({ telemetryBackend: 'log-only' satisfies TelemetryBackend }, 'telemetry ready');
    return telemetry;
  }
  if (settings.backend === 'otlp' && options.connectionString?.trim()) {
    logger.warn(
      { telemetryBackend: settings.backend, ignoredSetting: 'APPLICATIONINSIGHTS_CONNECTION_STRING' },
      'two telemetry backends configured; OTEL_EXPORTER_OTLP_ENDPOINT wins',
    );
  }
  if (!options.loadBackend) {
    const { logger: _logger, ...configured } = settings;
    return createWorkerTelemetry({
      settings: { ...configured, logLevel: logLevelOf(logger), secrets: secretsOf(settings) },
      logger,
      ...(options.schedule ? { schedule: options.schedule } : {}),
      ...(options.maxBuffered === undefined ? {} : { maxBuffered: options.maxBuffered }),
      ...(options.flushTimeoutMs === undefined ? {} : { flushTimeoutMs: options.flushTimeoutMs }),
    });
  }
  const load = options.loadBackend;
  return createDeferredTelemetry({
    backend: settings.backend,
    load: () => load(settings),
    fallback: () => createLogOnlyTelemetry({ logger }),
    logger,
    secrets: secretsOf(settings),
    schedule: options.schedule,
    maxBuffered: options.maxBuffered,
  });
}

/** The remote backend to load; its setting is checked again here for callers that pass their own (the app's settings refuse a bad one while it loads). */
function remoteBackendSettings(options: CreateTelemetryOptions): RemoteBackendSettings | undefined {
  const { logger, serviceName } = options;
  switch (telemetryBackendFor(options)) {
    case 'otlp': {
      const endpoint = options.otlp?.endpoint.trim() ?? '';
      assertOtlpEndpoint(endpoint);
      return { backend: 'otlp', endpoint, serviceName, resourceServiceName: options.otlp?.serviceName ?? serviceName, logger };
    }
    case 'application-insights': {
      const connectionString = options.connectionString?.trim() ?? '';
      assertAppInsightsConnectionString(connectionString);
      return { backend: 'application-insights', connectionString, serviceName, logger };
    }
    case 'log-only':
      return undefined;
  }
}

/** The configured values a failing backend might quote: the whole setting and each of its parts. */
function secretsOf(settings: RemoteBackendSettings): string[] {
  if (settings.backend === 'application-insights') {
    const parts = settings.connectionString.split(';').map((part) => part.slice(part.indexOf('=') + 1).trim());
    return [settings.connectionString, ...parts];
  }
  const url = URL.parse(settings.endpoint);
  return [settings.endpoint, ...(url ? [url.href, url.username, url.password] : [])];
}

/** The logger's level as a contract level word (pino's extra levels fold into their neighbours). */
function logLevelOf(logger: Logger): LogLevel {
  const level: string = logger.level;
  if (level === 'error' || level === 'warn' || level === 'info' || level === 'debug') return level;
  return level === 'fatal' || level === 'silent' ? 'error' : 'debug';
}
