import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { OtlpSignalUrls } from './otlp-endpoint';
import { logContextIdGenerator } from './otlp-trace-ids';

export interface OtlpProviderSettings {
  urls: OtlpSignalUrls;
  /** The resource's `service.name`. */
  serviceName: string;
  /** How long one export request may take. */
  exportTimeoutMs: number;
  /** How often the metric reader exports (`flush()` exports at once as well). */
  metricIntervalMs: number;
}

/** The three providers of the backend, each with its OTLP/HTTP (JSON) exporter behind a batching stage. */
export interface OtlpProviders {
  loggerProvider: LoggerProvider;
  meterProvider: MeterProvider;
  tracerProvider: BasicTracerProvider;
}

/** Batches: a few seconds of items per request, and a bounded queue that drops rather than grows. */
const BATCH = { maxQueueSize: 2048, maxExportBatchSize: 512, scheduledDelayMillis: 5_000 } as const;

/**
 * Builds private logger, meter and tracer providers. Nothing is registered globally and nothing is
 * instrumented (no `sdk-node`, no `register()`): only what the backend records explicitly leaves
 * the process. The exporters still read the standard `OTEL_EXPORTER_OTLP_*` variables for what is
 * not set here (headers, certificates, compression); the URLs set here win over the environment's.
 */
export function createOtlpProviders(settings: OtlpProviderSettings): OtlpProviders {
  const resource = resourceFromAttributes({ 'service.name': settings.serviceName });
  const exporter = { timeoutMillis: settings.exportTimeoutMs } as const;
  const loggerProvider = new LoggerProvider({
    resource,
    forceFlushTimeoutMillis: settings.exportTimeoutMs,
    processors: [
      new BatchLogRecordProcessor({
        exporter: new OTLPLogExporter({ ...exporter, url: settings.urls.logs }),
        ...BATCH,
        exportTimeoutMillis: settings.exportTimeoutMs,
      }),
    ],
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ ...exporter, url: settings.urls.metrics }),
        exportIntervalMillis: settings.metricIntervalMs,
        exportTimeoutMillis: Math.min(settings.exportTimeoutMs, settings.metricIntervalMs),
      }),
    ],
  });
  const tracerProvider = new BasicTracerProvider({
    resource,
    // Every dependency call is kept, as the Application Insights backend keeps them.
    sampler: new AlwaysOnSampler(),
    idGenerator: logContextIdGenerator(),
    forceFlushTimeoutMillis: settings.exportTimeoutMs,
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ ...exporter, url: settings.urls.traces }), {
        ...BATCH,
        exportTimeoutMillis: settings.exportTimeoutMs,
      }),
    ],
  });
  return { loggerProvider, meterProvider, tracerProvider };
}
