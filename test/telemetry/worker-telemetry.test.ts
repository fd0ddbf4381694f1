import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CanaryTracker } from '../helpers/canaries';
import { LogSink } from '../helpers/log-sink';
import { runWithLogContext } from '../../shared/logging/log-context';
import { createLogger } from '../../shared/logging/logger';
import type { Telemetry } from '../../shared/telemetry/telemetry';
import { createWorkerTelemetry, ITEMS_PER_MESSAGE } from '../../shared/telemetry/worker-telemetry';

/**
 * How the worker-thread facade posts calls to its worker, against a stand-in worker script that
 * reports each message it receives (`counting-telemetry-worker.cjs`): the real worker's SDK is
 * exercised end to end in app-insights.test.ts and otlp.test.ts.
 */

const WORKER = join(__dirname, 'counting-telemetry-worker.cjs');
const TRACE_A = 'a'.repeat(32);
const TRACE_B = 'b'.repeat(32);

let stopped: Telemetry[] = [];

function start(options: { schedule?: (start: () => void) => void } = {}): { telemetry: Telemetry; sink: LogSink } {
  const sink = new LogSink();
  const telemetry = createWorkerTelemetry({
    settings: { backend: 'application-insights', connectionString: 'InstrumentationKey=00000000-0000-0000-0000-000000000000', serviceName: 'api', logLevel: 'info', secrets: [] },
    logger: createLogger({ service: 'api', level: 'info', destination: sink }),
    workerScript: WORKER,
    ...options,
  });
  stopped.push(telemetry);
  return { telemetry, sink };
}

/** The catalogue keeps callers to its names and plain values; this feeds the facade what a careless caller could. */
type UntypedTelemetry = { trackEvent(name: string, properties?: Record<string, unknown>): void };
const untyped = (telemetry: Telemetry): UntypedTelemetry => telemetry as unknown as UntypedTelemetry;

/** What the stand-in worker said of each message, in order. */
const received = (sink: LogSink) => sink.withMessage('telemetry message received');

/** `count` deliveries, alternating between two traces, each result naming its trace. */
function trackDeliveries(telemetry: Telemetry, count: number, from = 0): void {
  for (let index = from; index < from + count; index += 1) {
    const trace = index % 2 === 0 ? 'a' : 'b';
    runWithLogContext({ traceId: trace === 'a' ? TRACE_A : TRACE_B, userId: null }, () =>
      telemetry.trackEvent('notification.delivery', { channel: 'push', result: `${trace}-${index}` }),
    );
  }
}

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

afterEach(async () => {
  for (const telemetry of stopped) await telemetry.flush();
  stopped = [];
});

describe('the worker-thread telemetry facade', () => {
  it('posts the calls of one turn together, in order and each with its own log context, at most ITEMS_PER_MESSAGE a message', async () => {
    const { telemetry, sink } = start();
    const count = ITEMS_PER_MESSAGE * 2 + 500;
    trackDeliveries(telemetry, count);
    await telemetry.flush();
    expect(received(sink).map(({ kind, items, firstResult, lastResult, contextsKept }) => ({ kind, items, firstResult, lastResult, contextsKept }))).toEqual([
      { kind: 'items', items: ITEMS_PER_MESSAGE, firstResult: 'a-0', lastResult: `b-${ITEMS_PER_MESSAGE - 1}`, contextsKept: true },
      { kind: 'items', items: ITEMS_PER_MESSAGE, firstResult: `a-${ITEMS_PER_MESSAGE}`, lastResult: `b-${2 * ITEMS_PER_MESSAGE - 1}`, contextsKept: true },
      { kind: 'items', items: 500, firstResult: `a-${2 * ITEMS_PER_MESSAGE}`, lastResult: `b-${count - 1}`, contextsKept: true },
      { kind: 'flush', items: undefined, firstResult: undefined, lastResult: undefined, contextsKept: undefined },
    ]);
  });

  it('posts a turn’s calls on the next turn without waiting for a flush, and each turn’s apart', async () => {
    const { telemetry, sink } = start();
    trackDeliveries(telemetry, 3);
    await until(() => received(sink).length === 1);
    trackDeliveries(telemetry, 2, 3);
    await until(() => received(sink).length === 2);
    expect(received(sink).map(({ items, firstResult, lastResult }) => ({ items, firstResult, lastResult }))).toEqual([
      { items: 3, firstResult: 'a-0', lastResult: 'a-2' },
      { items: 2, firstResult: 'b-3', lastResult: 'a-4' },
    ]);
  });

  it('puts a flush after every call made before it, even in the same turn', async () => {
    const { telemetry, sink } = start();
    trackDeliveries(telemetry, 4);
    const flushed = telemetry.flush();
    trackDeliveries(telemetry, 1, 4);
    await flushed;
    await until(() => received(sink).length === 3);
    expect(received(sink).map(({ kind, items }) => ({ kind, items }))).toEqual([
      { kind: 'items', items: 4 },
      { kind: 'flush', items: undefined },
      { kind: 'items', items: 1 },
    ]);
  });

  it.each([
    { when: 'the worker is running', schedule: undefined },
    { when: 'the worker has not started yet', schedule: (begin: () => void) => void setTimeout(begin, 50) },
  ])('turns an item that cannot be posted into one warn line and still posts the others, when $when', async ({ schedule }) => {
    const { telemetry, sink } = start(schedule ? { schedule } : {});
    trackDeliveries(telemetry, 2);
    // The careless caller's item also holds personal data: the warn line must not quote it.
    const canaries = new CanaryTracker();
    canaries.add('canary.worker-telemetry@example.org');
    untyped(telemetry).trackEvent('notification.delivery', { channel: 'push', result: 'a-x', contact: 'canary.worker-telemetry@example.org', callback: () => undefined });
    trackDeliveries(telemetry, 1, 2);
    await telemetry.flush();
    const items = received(sink).filter(({ kind }) => kind === 'items');
    expect(items.map(({ items: n, firstResult }) => ({ items: n, firstResult }))).toEqual([
      { items: 1, firstResult: 'a-0' },
      { items: 1, firstResult: 'b-1' },
      { items: 1, firstResult: 'a-2' },
    ]);
    expect(sink.withMessage('telemetry call failed')).toEqual([expect.objectContaining({ level: 'warn', telemetryCall: 'track event', errorType: 'DataCloneError' })]);
    expect(canaries.findIn(sink.raw.join('\n'))).toEqual([]);
  });
});
