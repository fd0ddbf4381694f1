/**
 * The OpenTelemetry backend: OTLP/HTTP (JSON) to `OTEL_EXPORTER_OTLP_ENDPOINT`, for a collector or
 * any OTLP-speaking service. The same calls as the Application Insights backend, with the same
 * properties, scrubbed the same way (`telemetry-correlation.ts`):
 * - a custom event is a log record with its `event.name` (attribute and the record's event name),
 *   the name as body and its properties as attributes;
 * - a metric is recorded on a gauge or histogram of its name (`otlp-instruments.ts`);
 * - an exception is an error log record with the semantic `exception.type`, `exception.message`
 *   and `exception.stacktrace` attributes;
 * - a dependency call is a client span of its duration, in the trace of the request chain, with an
 *   error status when it failed.
 *
 * This file and its `otlp-*.ts` helpers are the only ones that import the OpenTelemetry SDK. The
 * facade (`index.ts`) reaches them only through a dynamic `import()`, after the functions are
 * registered; nothing on the start-up path may import them.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, type Attributes } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import type { Logger } from '../logging/logger';
import { guardedCalls } from './guarded-call';
import { scrubSecrets } from '../logging/scrub';
import { flushWithin } from './flush-within';
import { otlpSignalUrls } from './otlp-endpoint';
import { metricRecorder } from './otlp-instruments';
import { createOtlpProviders } from './otlp-providers';
import type { Telemetry } from './telemetry';
import { correlatedProperties, dependencyProperties, metricDimensions, scrubbedError } from './telemetry-correlation';

export interface OtlpTelemetryOptions {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: the base URL; `/v1/logs`, `/v1/metrics`, `/v1/traces` go below it. Never logged. */
  endpoint: string;
  /** The `service` property of every item (the request chain's own service wins, as in every backend). */
  serviceName: string;
  /** The resource's `service.name` (`OTEL_SERVICE_NAME`); `serviceName` when not given. */
  resourceServiceName?: string;
  /** Where a failing telemetry call is reported (it never throws into the caller). */
  logger: Logger;
  /** `flush()` resolves after this long even if the exporters are still trying. */
  flushTimeoutMs?: number;
  /** How often metrics are exported between flushes. */
  metricIntervalMs?: number;
}

const DEFAULT_FLUSH_TIMEOUT_MS = 10_000;
const DEFAULT_METRIC_INTERVAL_MS = 60_000;
const INSTRUMENTATION_SCOPE = 'community-platform';

/**
 * Creates the OTLP backend and its exporters.
 * @throws Error when the endpoint is not an http(s) URL (bad configuration).
 */
export function createOtlpTelemetry(options: OtlpTelemetryOptions): Telemetry {
  const { serviceName } = options;
  const flushTimeoutMs = options.flushTimeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS;
  const providers = createOtlpProviders({
    urls: otlpSignalUrls(options.endpoint),
    serviceName: options.resourceServiceName ?? serviceName,
    exportTimeoutMs: flushTimeoutMs,
    metricIntervalMs: options.metricIntervalMs ?? DEFAULT_METRIC_INTERVAL_MS,
  });
  const logs = providers.loggerProvider.getLogger(INSTRUMENTATION_SCOPE);
  const metrics = metricRecorder(providers.meterProvider.getMeter(INSTRUMENTATION_SCOPE));
  const tracer = providers.tracerProvider.getTracer(INSTRUMENTATION_SCOPE);

  const guarded = guardedCalls(options.logger);

  return {
    trackEvent(name, properties) {
      guarded('event', () =>
        logs.emit({
          eventName: name,
          severityNumber: SeverityNumber.INFO,
          severityText: 'INFO',
          body: name,
          attributes: { ...correlatedProperties(properties, serviceName), 'event.name': name },
        }),
      );
    },
    trackMetric(name, value, properties) {
      guarded('metric', () => metrics.record(name, value, metricDimensions(properties, serviceName)));
    },
    trackException(error, properties) {
      guarded('exception', () => {
        const safe = scrubbedError(error);
        logs.emit({
          severityNumber: SeverityNumber.ERROR,
          severityText: 'ERROR',
          body: safe.message,
          attributes: {
            ...correlatedProperties(properties, serviceName),
            'exception.type': safe.name,
            'exception.message': safe.message,
            'exception.stacktrace': safe.stack ?? '',
          },
        });
      });
    },
    trackDependency(dependency) {
      guarded('dependency', () => {
        const end = Date.now();
        const attributes: Attributes = {
          ...correlatedProperties(dependencyProperties(dependency), serviceName),
          success: dependency.success,
        };
        // A root span in the chain's trace (`otlp-trace-ids.ts`), not a child of whatever is active.
        const span = tracer.startSpan(
          scrubSecrets(dependency.name),
          { kind: SpanKind.CLIENT, startTime: end - dependency.durationMs, attributes },
          ROOT_CONTEXT,
        );
        if (!dependency.success) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end(end);
      });
    },
    flush() {
      // The exporters report their own failures to the OpenTelemetry diagnostics (silent unless a
      // diagnostic logger is set); flushing never rejects.
      return flushWithin(
        () =>
          Promise.allSettled([
            providers.loggerProvider.forceFlush(),
            providers.meterProvider.forceFlush(),
            providers.tracerProvider.forceFlush(),
          ]),
        flushTimeoutMs,
      );
    },
  };
}
