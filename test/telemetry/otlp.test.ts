import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWithLogContext } from '../../shared/logging/log-context';
import { createLogger } from '../../shared/logging/logger';
import { REDACTION_MARKER } from '../../shared/logging/scrub';
import { createTelemetry, type Telemetry } from '../../shared/telemetry';
import { createOtlpTelemetry } from '../../shared/telemetry/otlp';
import { LogSink } from '../helpers/log-sink';
import { startSilentServer, type SilentServer } from '../helpers/silent-server';
import { startOtlpCapture, type OtlpCapture } from './otlp-capture';

/**
 * The real OTLP backend, through the facade and its dynamic import, against a local stand-in for
 * a collector's OTLP/HTTP receiver; the test reads the OTLP/JSON bodies that arrived.
 */

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const FANOUT_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CANARY_JWT = 'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJvdGxwLWNhbmFyeSJ9.b3RscC1jYW5hcnktc2ln';
const CANARY_EMAIL = 'canary.otlp@example.org';
const CANARY_PHONE = '+44 7700 900123';

/** The catalogue keeps callers to its names; this test feeds the backend what a careless caller could. */
type UntypedTelemetry = { trackEvent(name: string, properties?: Record<string, unknown>): void };
const untyped = (telemetry: Telemetry): UntypedTelemetry => telemetry as unknown as UntypedTelemetry;

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: number | string; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };
type LogRecord = { eventName?: string; severityNumber?: number; body?: AnyValue; attributes?: KeyValue[] };
type Span = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: KeyValue[];
  status?: { code?: number };
};
type DataPoint = { asDouble?: number; asInt?: number | string; attributes?: KeyValue[] };
type Metric = { name: string; gauge?: { dataPoints: DataPoint[] }; histogram?: { dataPoints: unknown[] } };
type Resource = { attributes?: KeyValue[] };

function valueOf(value: AnyValue): string | boolean | number | undefined {
  return value.stringValue ?? value.boolValue ?? (value.intValue === undefined ? value.doubleValue : Number(value.intValue));
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

function logRecords(capture: OtlpCapture): { resource: Resource; record: LogRecord }[] {
  return capture.bodiesOf('/v1/logs').flatMap((body) =>
    (body as { resourceLogs: { resource: Resource; scopeLogs: { logRecords: LogRecord[] }[] }[] }).resourceLogs.flatMap((resourceLogs) =>
      resourceLogs.scopeLogs.flatMap((scope) => scope.logRecords.map((record) => ({ resource: resourceLogs.resource, record }))),
    ),
  );
}

function spans(capture: OtlpCapture): { resource: Resource; span: Span }[] {
  return capture.bodiesOf('/v1/traces').flatMap((body) =>
    (body as { resourceSpans: { resource: Resource; scopeSpans: { spans: Span[] }[] }[] }).resourceSpans.flatMap((resourceSpans) =>
      resourceSpans.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ resource: resourceSpans.resource, span }))),
    ),
  );
}

function metrics(capture: OtlpCapture): Metric[] {
  return capture.bodiesOf('/v1/metrics').flatMap((body) =>
    (body as { resourceMetrics: { scopeMetrics: { metrics: Metric[] }[] }[] }).resourceMetrics.flatMap((resourceMetrics) =>
      resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics),
    ),
  );
}

const eventRecords = (capture: OtlpCapture, name: string) =>
  logRecords(capture).filter(({ record }) => attributesOf(record.attributes)['event.name'] === name);

describe('OTLP backend against a local OTLP/HTTP receiver', () => {
  let capture: OtlpCapture;
  const sink = new LogSink();
  let flushedBeforeReady = false;

  beforeAll(async () => {
    capture = await startOtlpCapture();
    const logger = createLogger({ service: 'api', level: 'debug', destination: sink });
    const telemetry = createTelemetry({ otlp: { endpoint: capture.endpoint, serviceName: 'platform-otlp-test' }, logger, serviceName: 'api' });

    // Tracked before the backend is loaded: kept by the facade, replayed in each call's own context.
    runWithLogContext({ traceId: TRACE_ID, userId: null }, () => {
      untyped(telemetry).trackEvent('notification.delivery', {
        channel: 'push',
        result: 'delivered',
        attempt: 2,
        leaked: `Bearer ${CANARY_JWT}`,
        contact: `write to ${CANARY_EMAIL}`,
        phone: CANARY_PHONE,
        skipped: undefined,
      });
      telemetry.trackDependency({
        name: 'GET jwks',
        dependencyType: 'HTTP',
        target: 'login.example.test',
        durationMs: 12,
        success: true,
        resultCode: 200,
      });
      telemetry.trackDependency({
        name: 'POST sms',
        dependencyType: 'HTTP',
        target: 'acs.example.test',
        durationMs: 30,
        success: false,
        resultCode: 503,
        properties: { channel: 'sms' },
      });
      telemetry.trackException(new Error(`lookup failed for ${CANARY_EMAIL}`), { step: 'capture-test' });
      telemetry.trackMetric('approval.queue_depth', 7, { queue: 'approvals' });
    });
    flushedBeforeReady = sink.withMessage('telemetry ready').length === 0;
    await telemetry.flush();

    // Tracked once the backend is ready: straight through.
    runWithLogContext({ traceId: FANOUT_TRACE_ID, userId: null, service: 'notifications' }, () => {
      telemetry.trackEvent('notification.fanout', { announcementId: 'announcement-1', recipients: 3, channels: 'push,sms' });
    });
    await telemetry.flush();
  });

  afterAll(async () => {
    await capture?.close();
  });

  it('loads the backend off the creating call, says so when ready, and posts OTLP/JSON to the three signal paths', () => {
    expect(flushedBeforeReady).toBe(true);
    expect(sink.withMessage('telemetry ready')).toEqual([expect.objectContaining({ telemetryBackend: 'otlp' })]);
    expect(new Set(capture.exports.map((item) => item.path))).toEqual(new Set(['/v1/logs', '/v1/metrics', '/v1/traces']));
    for (const item of capture.exports) {
      expect(item.method).toBe('POST');
      expect(item.contentType).toMatch(/^application\/json/);
      expect(item.json).toBeDefined();
    }
  });

  it('delivers the custom events as log records with their name, scrubbed properties, trace id and service', () => {
    const [delivery, ...others] = eventRecords(capture, 'notification.delivery');
    expect(others).toEqual([]);
    expect(delivery?.record.eventName).toBe('notification.delivery');
    expect(delivery?.record.severityNumber).toBe(9);
    expect(attributesOf(delivery?.record.attributes)).toEqual({
      'event.name': 'notification.delivery',
      channel: 'push',
      result: 'delivered',
      attempt: '2',
      leaked: REDACTION_MARKER,
      contact: `write to ${REDACTION_MARKER}`,
      phone: REDACTION_MARKER,
      traceId: TRACE_ID,
      service: 'api',
    });
    expect(attributesOf(delivery?.resource.attributes)).toMatchObject({ 'service.name': 'platform-otlp-test' });

    // The fan-out's chain names its own service, which wins over the process's.
    const fanout = eventRecords(capture, 'notification.fanout');
    expect(fanout.map(({ record }) => attributesOf(record.attributes))).toEqual([
      {
        'event.name': 'notification.fanout',
        announcementId: 'announcement-1',
        recipients: '3',
        channels: 'push,sms',
        traceId: FANOUT_TRACE_ID,
        service: 'notifications',
      },
    ]);
  });

  it('delivers the exception as an error log record with scrubbed exception attributes', () => {
    const exceptions = logRecords(capture).filter(({ record }) => attributesOf(record.attributes)['exception.type'] !== undefined);
    expect(exceptions).toHaveLength(1);
    const attributes = attributesOf(exceptions[0]?.record.attributes);
    expect(exceptions[0]?.record.severityNumber).toBe(17);
    expect(attributes).toMatchObject({
      'exception.type': 'Error',
      'exception.message': `lookup failed for ${REDACTION_MARKER}`,
      step: 'capture-test',
      traceId: TRACE_ID,
      service: 'api',
    });
    expect(attributes['exception.stacktrace']).toMatch(/^Error: lookup failed for \[REDACTED\]\n\s+at /);
  });

  it('delivers each dependency as a client span of its duration, in the request chain trace, failed ones with an error status', () => {
    const delivered = spans(capture).map(({ span }) => span);
    expect(delivered.map((span) => span.name).sort()).toEqual(['GET jwks', 'POST sms']);
    const jwks = delivered.find((span) => span.name === 'GET jwks');
    const sms = delivered.find((span) => span.name === 'POST sms');
    for (const span of [jwks, sms]) {
      expect(span?.kind).toBe(3);
      expect(span?.traceId).toBe(TRACE_ID);
      expect(span?.parentSpanId ?? '').toBe('');
    }
    expect(BigInt(jwks?.endTimeUnixNano ?? 0) - BigInt(jwks?.startTimeUnixNano ?? 0)).toBe(12_000_000n);
    expect(BigInt(sms?.endTimeUnixNano ?? 0) - BigInt(sms?.startTimeUnixNano ?? 0)).toBe(30_000_000n);
    expect(attributesOf(jwks?.attributes)).toEqual({
      dependencyType: 'HTTP',
      target: 'login.example.test',
      resultCode: '200',
      success: true,
      traceId: TRACE_ID,
      service: 'api',
    });
    expect(jwks?.status?.code ?? 0).toBe(0);
    expect(attributesOf(sms?.attributes)).toMatchObject({ channel: 'sms', resultCode: '503', success: false });
    expect(sms?.status?.code).toBe(2);
  });

  it('delivers the queue depth as a gauge with its dimensions and the service, without a per-request trace id', () => {
    const depth = metrics(capture).filter((metric) => metric.name === 'approval.queue_depth');
    expect(depth.length).toBeGreaterThan(0);
    const points = depth.flatMap((metric) => metric.gauge?.dataPoints ?? []);
    expect(points.length).toBeGreaterThan(0);
    for (const point of points) {
      expect(point.asDouble ?? Number(point.asInt)).toBe(7);
      expect(attributesOf(point.attributes)).toEqual({ queue: 'approvals', service: 'api' });
    }
  });

  it('lets no canary reach the receiver or the log, and never logs the endpoint', () => {
    const everything = `${capture.exports.map((item) => item.text).join('\n')}\n${sink.text}`;
    for (const canary of [CANARY_JWT, ...CANARY_JWT.split('.'), CANARY_EMAIL, CANARY_PHONE, CANARY_PHONE.replace(/\s/g, '')]) {
      expect(everything).not.toContain(canary);
    }
    expect(sink.text).not.toContain(capture.endpoint);
  });

  it('registers no global OpenTelemetry provider', () => {
    const api = (globalThis as Record<symbol, Record<string, unknown> | undefined>)[Symbol.for('opentelemetry.js.api.1')];
    expect(Object.keys(api ?? {}).filter((key) => key !== 'version')).toEqual([]);
  });
});

describe('OTLP backend against a receiver that never answers', () => {
  let silent: SilentServer;

  beforeAll(async () => {
    silent = await startSilentServer();
  });

  afterAll(async () => {
    await silent.close();
  });

  it('resolves flush() at its time limit while the export hangs', async () => {
    const sink = new LogSink();
    const telemetry = createOtlpTelemetry({
      endpoint: `http://127.0.0.1:${silent.port}`,
      serviceName: 'api',
      logger: createLogger({ service: 'api', level: 'info', destination: sink }),
      flushTimeoutMs: 300,
    });
    telemetry.trackEvent('auth.success', { accountType: 'adult' });
    const started = performance.now();
    await telemetry.flush();
    const flushMs = performance.now() - started;
    expect(flushMs).toBeGreaterThanOrEqual(250);
    expect(flushMs).toBeLessThan(3_000);
    expect(silent.openConnections()).toBeGreaterThan(0);
  });
});
