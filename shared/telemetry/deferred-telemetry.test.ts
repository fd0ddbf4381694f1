import { describe, expect, it } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import { currentLogContext, runWithLogContext } from '../logging/log-context';
import { createLogger } from '../logging/logger';
import { createDeferredTelemetry, type DeferredTelemetryOptions } from './deferred-telemetry';
import { createInMemoryTelemetry, type InMemoryTelemetry } from './in-memory';
import type { Telemetry } from './telemetry';

const TRACE_A = 'a'.repeat(32);
const TRACE_B = 'b'.repeat(32);

/** A promise the test settles by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** The facade with a hand-driven schedule and loader, a capturing log and in-memory backends. */
function harness(overrides: Partial<DeferredTelemetryOptions> = {}) {
  const sink = new LogSink();
  const logger = createLogger({ service: 'api', level: 'info', destination: sink });
  const backend = createInMemoryTelemetry();
  const fallback = createInMemoryTelemetry();
  const loading = deferred<Telemetry>();
  let loads = 0;
  let start: (() => void) | undefined;
  const telemetry = createDeferredTelemetry({
    backend: 'otlp',
    load: () => {
      loads += 1;
      return loading.promise;
    },
    fallback: () => fallback,
    logger,
    schedule: (begin) => {
      start = begin;
    },
    ...overrides,
  });
  return {
    sink,
    backend,
    fallback,
    telemetry,
    loading,
    get loads() {
      return loads;
    },
    /** Lets the scheduled load begin, then lets its promise chain run. */
    async start(): Promise<void> {
      start?.();
      await settle();
    },
  };
}

/** Enough turns of the event loop for a settled promise chain to finish. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function trackOneOfEach(telemetry: Telemetry): void {
  telemetry.trackEvent('notification.delivery', { channel: 'push', result: 'sent' });
  telemetry.trackMetric('approval.queue_depth', 3, { queue: 'approvals' });
  telemetry.trackException(new TypeError('bad input'), { step: 'one' });
  telemetry.trackDependency({ name: 'GET jwks', dependencyType: 'HTTP', target: 'idp.example', durationMs: 4, success: true });
}

describe('deferred telemetry', () => {
  it('starts loading only when scheduled, keeps every call until the backend is ready, then replays them in order', async () => {
    const h = harness();
    trackOneOfEach(h.telemetry);
    expect(h.loads).toBe(0);
    await h.start();
    expect(h.loads).toBe(1);
    expect(h.backend.items).toEqual([]);
    h.telemetry.trackEvent('auth.success', { accountType: 'adult' });

    h.loading.resolve(h.backend);
    await settle();
    expect(h.backend.items.map((item) => `${item.kind}:${item.name}`)).toEqual([
      'event:notification.delivery',
      'metric:approval.queue_depth',
      'exception:TypeError',
      'dependency:GET jwks',
      'event:auth.success',
    ]);
    expect(h.backend.items[1]).toMatchObject({ value: 3, properties: { queue: 'approvals' } });
    expect(h.sink.lines).toEqual([expect.objectContaining({ level: 'info', message: 'telemetry ready', telemetryBackend: 'otlp' })]);

    // Once ready, calls go straight through.
    h.telemetry.trackEvent('auth.failure', { reason: 'expired', accountType: 'child' });
    expect(h.backend.items.at(-1)).toMatchObject({ kind: 'event', name: 'auth.failure' });
    expect(h.loads).toBe(1);
  });

  it('replays each call in its caller log context, as it was when the call was made', async () => {
    const seen: { call: string; traceId: string; service: string | undefined }[] = [];
    const backend = createInMemoryTelemetry();
    const recording: Telemetry = {
      ...backend,
      trackEvent(name, properties) {
        seen.push({ call: name, traceId: currentLogContext().traceId, service: currentLogContext().service });
        backend.trackEvent(name, properties);
      },
    };
    const h = harness();
    runWithLogContext({ traceId: TRACE_A, userId: null }, () => h.telemetry.trackEvent('auth.success', { accountType: 'adult' }));
    runWithLogContext({ traceId: TRACE_B, userId: null, service: 'notifications' }, () =>
      h.telemetry.trackEvent('notification.fanout', { announcementId: 'a-1', recipients: 2, channels: 'push' }),
    );
    await h.start();
    h.loading.resolve(recording);
    await settle();
    expect(seen).toEqual([
      { call: 'auth.success', traceId: TRACE_A, service: undefined },
      { call: 'notification.fanout', traceId: TRACE_B, service: 'notifications' },
    ]);
  });

  it('keeps the properties as they were at the call, not as the caller changed them later', async () => {
    const h = harness();
    const properties = { channel: 'sms', result: 'sent' };
    h.telemetry.trackEvent('notification.delivery', properties);
    const dependencyProperties: Record<string, string> = { attempt: '1' };
    h.telemetry.trackDependency({ name: 'POST sms', dependencyType: 'HTTP', target: 'acs', durationMs: 9, success: true, properties: dependencyProperties });
    properties.result = 'changed';
    dependencyProperties.attempt = 'changed';
    await h.start();
    h.loading.resolve(h.backend);
    await settle();
    expect(h.backend.items.map((item) => item.properties)).toEqual([{ channel: 'sms', result: 'sent' }, { attempt: '1' }]);
  });

  it('keeps at most maxBuffered calls, counts the rest and says so once, at warn', async () => {
    const h = harness({ maxBuffered: 3 });
    for (let attempt = 1; attempt <= 5; attempt += 1) h.telemetry.trackMetric('approval.queue_depth', attempt);
    await h.start();
    h.loading.resolve(h.backend);
    await settle();
    expect(h.backend.items.map((item) => item.value)).toEqual([1, 2, 3]);
    expect(h.sink.withMessage('telemetry dropped while its backend loaded')).toEqual([
      expect.objectContaining({ level: 'warn', droppedTelemetryItems: 2, telemetryBufferLimit: 3 }),
    ]);

    // The limit only applies while loading.
    for (let attempt = 6; attempt <= 10; attempt += 1) h.telemetry.trackMetric('approval.queue_depth', attempt);
    await h.telemetry.flush();
    expect(h.backend.items).toHaveLength(8);
    expect(h.sink.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
  });

  it('falls back to the log backend when the load fails: one error line, no secret in it, nothing lost', async () => {
    const secret = 'InstrumentationKey=canary-0000;IngestionEndpoint=https://canary-ingest.example/';
    const h = harness({ secrets: [secret, 'https://canary-ingest.example/'] });
    trackOneOfEach(h.telemetry);
    await h.start();
    h.loading.reject(new Error(`cannot parse ${secret}`));
    await settle();
    h.telemetry.trackEvent('auth.success', { accountType: 'adult' });
    await h.telemetry.flush();
    await h.telemetry.flush();

    expect(h.fallback.items.map((item) => item.kind)).toEqual(['event', 'metric', 'exception', 'dependency', 'event']);
    expect(h.fallback.flushCount).toBe(2);
    expect(h.backend.items).toEqual([]);
    const errors = h.sink.lines.filter((line) => line.level === 'error');
    expect(errors).toEqual([
      expect.objectContaining({
        message: 'telemetry backend failed to load; telemetry goes to the log',
        errorCode: 'internal_error',
        telemetryBackend: 'otlp',
        errorType: 'Error',
      }),
    ]);
    expect(String(errors[0]?.stack)).toContain('cannot parse');
    expect(h.sink.text).not.toContain('canary-ingest');
    expect(h.sink.text).not.toContain('canary-0000');
    expect(h.sink.withMessage('telemetry ready')).toEqual([expect.objectContaining({ telemetryBackend: 'log-only' })]);
  });

  it('falls back as well when the loader throws instead of rejecting', async () => {
    const h = harness({
      load: () => {
        throw new RangeError('no such module');
      },
    });
    h.telemetry.trackEvent('auth.success', { accountType: 'adult' });
    await h.start();
    await h.telemetry.flush();
    expect(h.fallback.items).toHaveLength(1);
    expect(h.sink.lines.filter((line) => line.level === 'error')).toEqual([expect.objectContaining({ errorType: 'RangeError' })]);
  });

  it('flush() waits for the backend, then flushes it after the kept calls were replayed', async () => {
    const h = harness();
    h.telemetry.trackEvent('auth.success', { accountType: 'adult' });
    let flushed = false;
    const flushing = h.telemetry.flush().then(() => {
      flushed = true;
    });
    await h.start();
    await settle();
    expect(flushed).toBe(false);
    expect(h.backend.flushCount).toBe(0);

    const flushOrder: string[] = [];
    const backend: InMemoryTelemetry = h.backend;
    const watching: Telemetry = {
      ...backend,
      flush() {
        flushOrder.push(`flush after ${backend.items.length} items`);
        return backend.flush();
      },
    };
    h.loading.resolve(watching);
    await flushing;
    expect(flushed).toBe(true);
    expect(flushOrder).toEqual(['flush after 1 items']);
  });

  it('loads on the next turn of the event loop by default, not during the call that creates it', async () => {
    const sink = new LogSink();
    let loads = 0;
    const telemetry = createDeferredTelemetry({
      backend: 'application-insights',
      load: () => {
        loads += 1;
        return Promise.resolve(createInMemoryTelemetry());
      },
      fallback: () => createInMemoryTelemetry(),
      logger: createLogger({ service: 'api', level: 'info', destination: sink }),
    });
    expect(loads).toBe(0);
    expect(sink.raw).toEqual([]);
    await telemetry.flush();
    expect(loads).toBe(1);
    expect(sink.withMessage('telemetry ready')).toEqual([expect.objectContaining({ telemetryBackend: 'application-insights' })]);
  });
});
