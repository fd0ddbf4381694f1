/**
 * The Application Insights backend, on the classic API of `applicationinsights` 3.x.
 *
 * 3.x is a shim over the Azure Monitor OpenTelemetry distro, and its two entry points behave very
 * differently:
 * - `setup(cs).start()`, and also a plain `new TelemetryClient(cs)` on its first `track*` call,
 *   run `useAzureMonitor()`: global OpenTelemetry providers, HTTP request and dependency
 *   auto-instrumentation (a second copy of the request telemetry the Functions host already
 *   records), Azure SDK / database / logger instrumentations, live metrics, performance counters,
 *   an `uncaughtException` hook, an Azure instance-metadata lookup (itself sent as a dependency)
 *   and offline storage in the temp directory.
 * - `new TelemetryClient(cs, { useGlobalProviders: false })` builds private tracer, logger and
 *   meter providers with nothing but the Azure Monitor exporters behind them. Nothing is patched,
 *   nothing global is registered, no console or pino output is captured, no live metrics: only
 *   the items this module tracks explicitly leave the process. That is the one used here.
 *
 * The distro options below switch the auto-collection off as well; the isolated client ignores
 * them, they are there so that a later switch to the global providers does not silently turn it
 * all back on. Offline storage is off: telemetry that cannot be sent is dropped rather than kept
 * on local disk (it is not worth the disk, nor the risk of an unexpected copy of it).
 *
 * This file is the only one that imports `applicationinsights` (over a second of loading, the whole
 * OpenTelemetry Node SDK behind it). The facade (`index.ts`) reaches it only through a dynamic
 * `import()`, after the functions are registered; nothing on the start-up path may import it.
 */
import { TelemetryClient, type AzureMonitorOpenTelemetryOptions } from 'applicationinsights';
import { currentLogContext } from '../logging/log-context';
import type { Logger } from '../logging/logger';
import { guardedCalls } from './guarded-call';
import { scrubSecrets } from '../logging/scrub';
import { assertAppInsightsConnectionString } from '../settings/app-insights-connection';
import { flushWithin } from './flush-within';
import type { DependencyTelemetry, Telemetry } from './telemetry';
import { correlatedProperties, dependencyProperties, metricDimensions, scrubbedError } from './telemetry-correlation';

export interface AppInsightsTelemetryOptions {
  /** The `APPLICATIONINSIGHTS_CONNECTION_STRING` value; never logged. */
  connectionString: string;
  /** Sent as the `service` property of every item. */
  serviceName: string;
  /** Where a failing telemetry call is reported (it never throws into the caller). */
  logger: Logger;
  /** `flush()` resolves after this long even if the exporters are still trying. */
  flushTimeoutMs?: number;
}

const DEFAULT_FLUSH_TIMEOUT_MS = 10_000;

/** A W3C trace id that Application Insights accepts as an operation id. */
const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;

const NOTHING_ENABLED = { enabled: false } as const;

/**
 * Creates the Application Insights backend, exporters included (at start-up, not inside the first
 * request that tracks something).
 * @throws Error when the connection string has no valid instrumentation key (bad configuration).
 */
export function createAppInsightsTelemetry(options: AppInsightsTelemetryOptions): Telemetry {
  assertAppInsightsConnectionString(options.connectionString);
  const { serviceName } = options;
  const client = createIsolatedClient(options.connectionString);
  const flushTimeoutMs = options.flushTimeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS;

  const guarded = guardedCalls(options.logger);

  return {
    trackEvent(name, properties) {
      guarded('event', () => client.trackEvent({ name, properties: correlatedProperties(properties, serviceName) }));
    },
    trackMetric(name, value, properties) {
      guarded('metric', () => client.trackMetric({ name, value, properties: metricDimensions(properties, serviceName) }));
    },
    trackException(error, properties) {
      guarded('exception', () =>
        client.trackException({ exception: scrubbedError(error), properties: correlatedProperties(properties, serviceName) }),
      );
    },
    trackDependency(dependency) {
      guarded('dependency', () => client.trackDependency(toDependencyTelemetry(dependency, serviceName)));
    },
    flush() {
      // The client logs its own export failures to the OpenTelemetry diagnostics.
      return flushWithin(() => client.flush(), flushTimeoutMs);
    },
  };
}

function createIsolatedClient(connectionString: string): TelemetryClient {
  const client = new TelemetryClient(connectionString, { useGlobalProviders: false });
  client.config.azureMonitorOpenTelemetryOptions = distroOptions(connectionString);
  client.config.enableUseDiskRetryCaching = false;
  client.config.enableSendLiveMetrics = false;
  client.config.enableAutoCollectConsole = false;
  client.config.enableAutoCollectExternalLoggers = false;
  client.config.enableAutoCollectExceptions = false;
  client.config.enableAutoCollectPerformance = false;
  client.config.enableAutoCollectRequests = false;
  client.config.enableAutoCollectDependencies = false;
  // No common `service` property: each item names its service itself (`correlated`), and a common
  // one would overwrite the fan-out's `notifications` with the process's `api`.
  // Builds the exporters now, at start-up, instead of inside the first request that tracks something.
  client.initialize();
  return client;
}

function distroOptions(connectionString: string): AzureMonitorOpenTelemetryOptions {
  return {
    azureMonitorExporterOptions: { connectionString, disableOfflineStorage: true },
    enableLiveMetrics: false,
    enableStandardMetrics: false,
    enablePerformanceCounters: false,
    enableAutoCollectPerformance: false,
    enableAutoCollectExceptions: false,
    enableAutoCollectRequests: false,
    enableAutoCollectDependencies: false,
    instrumentationOptions: {
      http: NOTHING_ENABLED,
      azureSdk: NOTHING_ENABLED,
      mongoDb: NOTHING_ENABLED,
      mySql: NOTHING_ENABLED,
      postgreSql: NOTHING_ENABLED,
      redis: NOTHING_ENABLED,
      redis4: NOTHING_ENABLED,
      bunyan: NOTHING_ENABLED,
      winston: NOTHING_ENABLED,
      console: NOTHING_ENABLED,
    },
  };
}

function toDependencyTelemetry(dependency: DependencyTelemetry, serviceName: string): Parameters<TelemetryClient['trackDependency']>[0] {
  const traceId = currentLogContext().traceId;
  return {
    // The shim turns `id` into the trace id of the dependency span, i.e. its operation id.
    ...(TRACE_ID.test(traceId) ? { id: traceId } : {}),
    name: scrubSecrets(dependency.name),
    dependencyTypeName: scrubSecrets(dependency.dependencyType),
    target: scrubSecrets(dependency.target),
    duration: dependency.durationMs,
    success: dependency.success,
    ...(dependency.resultCode === undefined ? {} : { resultCode: scrubSecrets(String(dependency.resultCode)) }),
    // The shim fills the typed fields (type, target, result code) only for calls it can read as
    // HTTP with a URL, SQL or RPC; we send no URLs or statements, so the properties keep them visible.
    properties: correlatedProperties(dependencyProperties(dependency), serviceName),
  };
}
