import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { currentLogContext, runWithLogContext } from '../logging/log-context';
import { errorFields, type Logger } from '../logging/logger';
import { guardedCalls } from './guarded-call';
import type { Telemetry } from './telemetry';
import type { ContextualItem, FromWorker, ItemContext, TelemetryItem, TelemetryWorkerSettings, ToWorker } from './worker-protocol';

export interface WorkerTelemetryOptions {
  settings: TelemetryWorkerSettings;
  logger: Logger;
  /** The longest `flush()` waits for the worker; then it counts what was not flushed and stops the worker. */
  flushTimeoutMs?: number;
  /** Items posted before the backend is ready, at most; later ones are counted and dropped. */
  maxBuffered?: number;
  /** When the worker is started: by default on the next turn of the event loop, off the creating call. */
  schedule?: (start: () => void) => void;
  /** The worker's script; by default `telemetry-worker.js` beside this module (or the compiled one). */
  workerScript?: string;
}

/**
 * What a shutdown flush may take: the Functions host kills the worker 5 s after
 * `WorkerTerminate`, and every stop must end within 3 s of it whatever the telemetry endpoint does.
 */
export const WORKER_FLUSH_TIMEOUT_MS = 2_000;

/** As `DEFAULT_MAX_BUFFERED` of the deferred facade: a busy start-up's items, a bounded memory if the SDK never loads. */
const DEFAULT_MAX_BUFFERED = 5_000;

/** The most items one message carries: a long synchronous burst goes out in pieces, not as one large copy. */
export const ITEMS_PER_MESSAGE = 1_000;

/**
 * The telemetry facade backed by a worker thread that owns the SDK (`telemetry-worker.ts`): every
 * call is turned into plain data with its caller's log context, and the calls of one turn of the
 * event loop are posted together through the worker's message port (`ITEMS_PER_MESSAGE` at most),
 * so the main thread never loads, runs or waits for the SDK. The worker is started
 * on the next turn of the event loop (`schedule`), `unref`ed so it never holds the process open.
 *
 * `telemetry ready` is written when the worker's backend is built (or, when it fails, after one
 * error line, with the log backend the worker then uses). `flush()` asks the worker to flush and
 * waits at most `flushTimeoutMs`: past it, one warn line counts the items not confirmed flushed and
 * the worker is stopped, so that no export still under way holds the exit.
 */
export function createWorkerTelemetry(options: WorkerTelemetryOptions): Telemetry {
  const { logger, settings } = options;
  const flushTimeoutMs = options.flushTimeoutMs ?? WORKER_FLUSH_TIMEOUT_MS;
  const maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
  const schedule = options.schedule ?? ((start: () => void) => void setImmediate(start));
  let worker: Worker | undefined;
  /** Messages made before the worker exists (the turn it is scheduled on). */
  let early: ToWorker[] | undefined = [];
  let ready = false;
  let stopped = false;
  let posted = 0;
  let confirmed = 0;
  let droppedBeforeReady = 0;
  let nextFlushId = 1;
  const flushes = new Map<number, () => void>();

  /** Items of this turn not yet posted: they go together on the check phase of the loop (`setImmediate`). */
  let pending: ContextualItem[] = [];
  let pendingTimer: NodeJS.Immediate | undefined;

  const guarded = guardedCalls(logger);

  /**
   * Posts to the worker (before it exists, keeps the message for it). A message whose items cannot
   * all be cloned (a careless caller's property) goes again an item at a time: the one that fails
   * becomes a warn line, the turn's other items still go, and nothing throws out of the timer.
   */
  const postToWorker = (target: Worker, message: ToWorker): void => {
    try {
      target.postMessage(message);
    } catch (error) {
      if (message.kind !== 'items') throw error;
      for (const one of message.items) guarded(`track ${one.item.type}`, () => target.postMessage({ kind: 'items', items: [one] } satisfies ToWorker));
    }
  };

  const post = (message: ToWorker): void => {
    if (worker) postToWorker(worker, message);
    else early?.push(message);
  };

  const postPending = (): void => {
    if (pendingTimer) clearImmediate(pendingTimer);
    pendingTimer = undefined;
    if (pending.length === 0) return;
    const items = pending;
    pending = [];
    post({ kind: 'items', items });
  };

  const onMessage = (message: FromWorker): void => {
    switch (message.kind) {
      case 'line':
        relayLine(logger, message.line);
        return;
      case 'failed':
        logger.error(
          { errorCode: 'internal_error', telemetryBackend: message.backend, errorType: message.errorType, stack: message.stack },
          'telemetry backend failed to load; telemetry goes to the log',
        );
        return;
      case 'ready':
        ready = true;
        logger.info({ telemetryBackend: message.backend }, 'telemetry ready');
        if (droppedBeforeReady > 0) {
          logger.warn({ droppedTelemetryItems: droppedBeforeReady, telemetryBufferLimit: maxBuffered }, 'telemetry dropped while its backend loaded');
        }
        return;
      case 'flushed':
        confirmed = Math.max(confirmed, message.received);
        flushes.get(message.id)?.();
        flushes.delete(message.id);
        return;
    }
  };

  const stop = (): void => {
    stopped = true;
    early = undefined;
    pending = [];
    if (pendingTimer) clearImmediate(pendingTimer);
    pendingTimer = undefined;
    for (const done of flushes.values()) done();
    flushes.clear();
    void worker?.terminate();
  };

  schedule(() => {
    if (stopped) return;
    // Loaded here, not at the top: the worker_threads module is not needed until the worker starts.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Worker: WorkerThread } = require('node:worker_threads') as typeof import('node:worker_threads');
    try {
      worker = new WorkerThread(options.workerScript ?? telemetryWorkerScript(), { workerData: settings });
    } catch (error) {
      logger.error({ errorCode: 'internal_error', telemetryBackend: settings.backend, ...errorFields(error) }, 'telemetry worker failed to start');
      stop();
      return;
    }
    worker.on('message', onMessage);
    worker.on('error', (error) => {
      logger.error({ errorCode: 'internal_error', telemetryBackend: settings.backend, ...errorFields(error) }, 'telemetry worker failed; telemetry is off');
    });
    worker.once('exit', () => {
      if (!stopped) stop();
    });
    // After the listeners: adding a message listener refs the worker's port again.
    worker.unref();
    for (const message of early ?? []) postToWorker(worker, message);
    early = undefined;
  });

  const send = (item: TelemetryItem): void => {
    if (stopped) return;
    if (!ready && posted - confirmed >= maxBuffered) {
      droppedBeforeReady += 1;
      return;
    }
    posted += 1;
    pending.push({ item, context: contextOf() });
    if (pending.length >= ITEMS_PER_MESSAGE) postPending();
    // Unref'd: items still waiting never hold the process open, as the worker's port does not.
    else pendingTimer ??= setImmediate(postPending).unref();
  };

  return {
    trackEvent(name, properties) {
      send({ type: 'event', name, properties: { ...properties } });
    },
    trackMetric(name, value, properties) {
      send({ type: 'metric', name, value, ...(properties ? { properties: { ...properties } } : {}) });
    },
    trackException(error, properties) {
      send({ type: 'exception', error: plainError(error), ...(properties ? { properties: { ...properties } } : {}) });
    },
    trackDependency(dependency) {
      send({ type: 'dependency', dependency: { ...dependency, ...(dependency.properties ? { properties: { ...dependency.properties } } : {}) } });
    },
    async flush() {
      if (stopped) return;
      const id = nextFlushId++;
      const upTo = posted;
      let timer: NodeJS.Timeout | undefined;
      const flushed = await new Promise<boolean>((resolve) => {
        flushes.set(id, () => resolve(true));
        timer = setTimeout(() => resolve(false), flushTimeoutMs);
        postPending();
        post({ kind: 'flush', id });
      });
      clearTimeout(timer);
      if (flushed) return;
      flushes.delete(id);
      logger.warn(
        { unflushedTelemetryItems: Math.max(0, upTo - confirmed), telemetryBackend: settings.backend, waitedMs: flushTimeoutMs },
        'telemetry not flushed in time; the rest is dropped',
      );
      // An export still under way (an endpoint that never answers) must not hold the exit.
      stop();
    },
  };
}

/** The caller's log context, as plain data. */
function contextOf(): ItemContext {
  const { traceId, userId, service } = currentLogContext();
  return { traceId, userId, ...(service === undefined ? {} : { service }) };
}

/** The error as the backends read it (`scrubbedError` scrubs it in the worker). */
function plainError(error: unknown): { name: string; message: string; stack: string } {
  const { stack } = errorFields(error);
  return {
    name: error instanceof Error ? error.name : 'NonErrorThrown',
    message: error instanceof Error ? error.message : String(error),
    stack,
  };
}

/** A line of the worker's logger, written to the app's log in the context the worker wrote it in. */
function relayLine(logger: Logger, line: string): void {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return;
  }
  const { level, message, timestamp: _timestamp, traceId, userId, service, ...fields } = parsed;
  const write = level === 'error' ? logger.error : level === 'warn' ? logger.warn : level === 'debug' ? logger.debug : logger.info;
  const context = {
    traceId: typeof traceId === 'string' ? traceId : currentLogContext().traceId,
    userId: typeof userId === 'string' ? userId : null,
    ...(typeof service === 'string' ? { service } : {}),
  };
  runWithLogContext(context, () => write.call(logger, fields, typeof message === 'string' ? message : 'telemetry worker line'));
}

/**
 * `telemetry-worker.js` beside this module: the bundle's (`dist/app/`) or tsc's
 * (`dist/shared/telemetry/`). Tests that run this module from its TypeScript source use the compiled one.
 */
function telemetryWorkerScript(): string {
  const beside = path.join(__dirname, 'telemetry-worker.js');
  if (existsSync(beside)) return beside;
  return path.resolve(__dirname, '..', '..', 'dist', 'shared', 'telemetry', 'telemetry-worker.js');
}
