import { app } from '@azure/functions';
import type { AppServices } from '../composition-root';
import { ANSWERS_LEAVE_MS, WORKER_TERMINATE_GRACE_MS } from '../settings/shutdown-timings';
import { errorFields, type Logger } from '../logging/logger';

/**
 * Start-up and shutdown lines, and a clean close of what the process holds open, inside the
 * platform's grace period, whichever host runs the app.
 *
 * Termination begins at the first of two notices, and both run the same stop, once (`/api/ready`
 * answers 503 from then on so the platform stops routing here, while new HTTP requests are still
 * served until the stop closes the database or the deadline passes; the work in flight is waited for
 * before the database closes, and a closed database is not opened again):
 * - the process's own SIGTERM/SIGINT. The Node.js worker installs no handler of its own, so on a
 *   scale-in or a deploy nothing else would flush telemetry or close the database: the app stops
 *   itself and then ends the process (exit 0, or 1 if the stop outlives the exit point);
 * - the `appTerminate` hook, which the worker runs when the Functions host sends `WorkerTerminate`,
 *   and after which the worker exits. That hook carries no grace period (the library's
 *   `AppTerminateContext` has hook data only), and the host kills the worker 5 s after the message,
 *   so the hook schedules the shutdown within those 5 s unless a signal already scheduled it sooner.
 * Either way the process ends right after the stop (the worker calls `process.exit` as soon as the
 * hook resolves), so the stop ends by letting the answers of the work it drained leave first.
 */

/**
 * Installs the start and stop of the process (`registerApp` calls it once the functions are
 * registered). The services are built by the `appStart` hook, on the next turn of the event loop.
 * @param appServices the process's services (built on first call).
 */
export function installAppLifecycle(appServices: () => AppServices): void {
  /** Begins the shutdown and says so once, with the time left until provider calls are cut off. */
  function beginShutdown(reason: string, graceMs?: number): void {
    const { shutdown, logger } = appServices();
    if (shutdown.begin(reason, graceMs)) logger.info({ reason, deadlineMs: shutdown.remainingMs('deadline') }, 'shutdown begun');
  }

  let stopped: Promise<void> | undefined;

  /** The stop both notices share: the first runs it, a later one waits for the same run. */
  function stopApp(): Promise<void> {
    stopped ??= runStop();
    return stopped;
  }

  async function runStop(): Promise<void> {
    const services = appServices();
    const { shutdown, logger } = services;
    logger.info('app stopping');
    // Every HTTP request, queue message, timer and Event Grid run in progress is tracked (the HTTP
    // pipeline and the background handler). The ingress keeps routing here for a few seconds after
    // the signal, so new requests are still served (and tracked) until the database starts closing or
    // the deadline passes; `/api/ready` already answers 503. Requests still running at the deadline are
    // answered 503 then, and fan-out batches give their rows back; the database must outlive all of
    // that, so it closes only once they settled or the drain point passed.
    const settled = await shutdown.drained(shutdown.remainingMs('drain'));
    // From here new requests are refused up front rather than failing on the closed database.
    shutdown.closeDown();
    if (!settled) logger.warn('app stopping with work still running');
    try {
      await withinMs(services.telemetry.flush(), shutdown.remainingMs('exit'), logger);
      await services.database.close();
    } catch (error) {
      logger.error({ errorCode: 'internal_error', ...errorFields(error) }, 'clean shutdown failed');
    }
    logger.info('app stopped');
  }

  /**
   * Gives the answers of the invocations the stop drained time to leave the process before it ends:
   * the worker writes an answer to its gRPC stream only after the handler settled, and HTTP/2 sends
   * it on a later turn of the event loop, while the worker exits as soon as the `appTerminate` hooks
   * resolve. One turn of the loop, then `ANSWERS_LEAVE_MS`, never past the exit point.
   */
  async function letAnswersLeave(): Promise<void> {
    const { shutdown } = appServices();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, Math.min(ANSWERS_LEAVE_MS, shutdown.remainingMs('exit'))));
  }

  /** A signal: stop, then end the process, which no host does for the app on a signal. */
  function onSignal(signal: NodeJS.Signals): void {
    const { shutdown, logger } = appServices();
    beginShutdown(signal);
    const exitMs = shutdown.remainingMs('exit');
    // Exiting just before the platform's SIGKILL keeps the exit (and its line) ours.
    setTimeout(() => {
      logger.error(
        { errorCode: 'shutdown_timeout', ...errorFields(new Error(`The app did not stop within ${exitMs} ms of ${signal}.`)) },
        'app did not stop in time; exiting',
      );
      process.exit(1);
    }, exitMs).unref();
    void stopApp()
      .then(letAnswersLeave)
      .then(() => process.exit(0));
  }

  /**
   * Installed once per process, even if this module were loaded twice (a second registration would
   * run the stop twice and race two exits). `once`: a second signal gets Node's default (the process
   * ends at once), unless a host handles it.
   */
  const SIGNALS_INSTALLED = Symbol.for('community-platform.app-signal-handlers');
  const processState = process as unknown as Record<symbol, boolean | undefined>;
  if (!processState[SIGNALS_INSTALLED]) {
    processState[SIGNALS_INSTALLED] = true;
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }

  app.hook.appStart(() => {
    // The worker answers the host only once this hook is done, and the host sends nothing before, so
    // the hook holds nothing a request can do later. The services (logger, telemetry facade, HTTP
    // pipeline) are built on the next turn of the event loop, after the worker's answer went out, and
    // by the first invocation if it comes sooner (`appServices()`). The child sign-in's dummy hash is
    // shipped with the hasher (`dummyArgon2idHash`), nothing is computed for it.
    setImmediate(() => {
      // A stop that came first already built the services; its `app stopped` stays the last line.
      if (stopped) return;
      const { config, logger } = appServices();
      logger.info({ appEnv: config.appEnv, nodeVersion: process.version, database: config.database.kind }, 'app started');
    });
  });

  app.hook.appTerminate(async () => {
    beginShutdown('app_terminate', WORKER_TERMINATE_GRACE_MS);
    await stopApp();
    // The worker exits the moment this hook resolves (`terminateWorker`: hooks, then `process.exit`).
    await letAnswersLeave();
  });
}

/** Waits for `work` at most `ms`: an unreachable telemetry backend must not hold the exit. */
async function withinMs(work: Promise<void>, ms: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      logger.warn({ waitedMs: ms }, 'telemetry not flushed before the shutdown deadline');
      resolve();
    }, ms);
  });
  try {
    await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
