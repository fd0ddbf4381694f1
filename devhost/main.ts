import './require-node';
import { redirectConsoleToStderr } from './console-to-stderr';
import { ConfigError, loadConfig, type Config } from '../shared/config';
import { shutdownTimings, type ShutdownTimings } from '../shared/settings/shutdown-timings';
import { createLogger, errorFields, type Logger } from '../shared/logging/logger';
import { applySettings, LocalSettingsError, readLocalSettings } from './local-settings';
import { loadApp } from './load-app';
import { startLocalHost, type LocalHost } from './local-host';

/**
 * The local host process (`node dist/devhost/main.js`, run from the app's root like `func start`).
 * Stdout carries JSON log lines only: the console is sent to stderr before the app loads.
 */
redirectConsoleToStderr();

const SERVICE = 'local-host';

/** The real exit, kept before a signal's shutdown makes the app's `process.exit` wait for the host's stop. */
const exitNow = process.exit.bind(process);

async function main(): Promise<void> {
  let logger: Logger = createLogger({ service: SERVICE, level: 'info' });
  let host: LocalHost | undefined;
  let timings: ShutdownTimings | undefined;
  const fail = (message: string) => (error: unknown) => {
    logger.error({ errorCode: 'internal_error', ...errorFields(error) }, message);
    exitNow(1);
  };
  process.on('uncaughtException', fail('uncaught exception in the local host'));
  process.on('unhandledRejection', fail('unhandled rejection in the local host'));

  try {
    const appRoot = process.cwd();
    // Tests start the host with an exact environment; a developer's local.settings.json must not leak in.
    if (process.env.DEVHOST_SKIP_LOCAL_SETTINGS !== 'true') applySettings(readLocalSettings(appRoot), process.env);
    const config = loadHostConfig(appRoot);
    logger = createLogger({ service: SERVICE, level: config.logLevel, pretty: config.logPretty });
    timings = shutdownTimings(config.shutdownGraceSeconds * 1000);
    host = await startLocalHost({ appRoot, config, settings: process.env, logger });
    logger.info({ port: host.port, functionCount: host.functionCount }, 'local host listening');
  } catch (error) {
    // Stdout is for JSON lines; a developer at a terminal reads the reason on stderr too.
    if (error instanceof Error) process.stderr.write(`local host failed to start: ${error.message}\n`);
    // A person's mistake in the settings file, not a bug: that one line says all (no internal_error, no stack).
    if (error instanceof LocalSettingsError) return void exitNow(1);
    fail('local host failed to start')(error);
    return;
  }

  // The app's own signal handlers (shared/composition/app-lifecycle.ts), installed while it loaded: under the
  // Node.js worker they are the only ones, so here they run the app's stop and end the process.
  const appHandles = { SIGTERM: process.listenerCount('SIGTERM') > 0, SIGINT: process.listenerCount('SIGINT') > 0 };
  let stopping = false;
  const shutdown = (signal: 'SIGTERM' | 'SIGINT'): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without a clean shutdown');
      exitNow(1);
    }
    stopping = true;
    logger.info({ signal, graceMs: timings?.graceMs, appHandlesSignal: appHandles[signal] }, 'local host stopping');
    process.once('exit', (exitCode) => logger.info({ exitCode }, 'local host stopped'));
    if (timings) {
      // The platform's SIGKILL ends the grace period: exiting just before it keeps the exit ours.
      const exitMs = timings.exitMs;
      setTimeout(() => {
        const error = new Error(`The app did not end the process within ${exitMs} ms of ${signal}.`);
        logger.error({ errorCode: 'shutdown_timeout', ...errorFields(error) }, 'local host did not stop in time; exiting');
        exitNow(1);
      }, exitMs).unref();
    }
    // As the Functions host on a signal: its listeners stop; no `appTerminate` hook runs (the worker
    // has no signal handler, so only the app's own handler stops the app, once).
    const hostStopped = host?.stopListeners(timings ? { drainMs: timings.drainMs } : {}) ?? Promise.resolve();
    if (appHandles[signal]) {
      // Under Functions the host and the worker are two processes: the worker's exit does not cut
      // the host's own stop short (a queue message whose run failed is still made visible again).
      // Here they share one, so the app's exit waits for the host's stop (bounded by the guard above).
      process.exit = ((code?: number) => {
        void hostStopped.catch(() => undefined).then(() => exitNow(code));
      }) as typeof process.exit;
    }
    hostStopped
      .then(() => {
        if (appHandles[signal]) return; // the app exits when its stop is done
        // No handler in the app: the signal's default action ends the worker, as it would in Azure.
        logger.info({ signal }, 'local host stopped');
        process.removeListener(signal, shutdown);
        process.kill(process.pid, signal);
      })
      .catch(fail('clean shutdown failed'));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

/**
 * The settings the host itself needs (port, storage, log level, grace), read with the app's parser.
 * When they are invalid, the real Functions host does not notice: it starts the worker, which loads
 * the app, and the app ends the process with its own `config_invalid` line (shared/lifecycle/
 * config-failure.ts). So does this host: it loads the app and lets it exit; an app that loads anyway
 * is a failure of its own.
 */
function loadHostConfig(appRoot: string): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    loadApp(appRoot);
    throw new Error('The app loaded although its settings are invalid; it should have exited with a config_invalid line.');
  }
}

void main();
