import { redirectConsoleToStderr } from './console-to-stderr';
import { loadConfig } from '../shared/config';
import { shutdownTimings, type ShutdownTimings } from '../shared/lifecycle/shutdown-timings';
import { createLogger, errorFields, type Logger } from '../shared/logging/logger';
import { applySettings, readLocalSettings } from './local-settings';
import { startLocalHost, type LocalHost } from './local-host';

/**
 * The local host process (`node dist/devhost/main.js`, run from the app's root like `func start`).
 * Stdout carries JSON log lines only: the console is sent to stderr before the app loads.
 */
redirectConsoleToStderr();

const SERVICE = 'local-host';

async function main(): Promise<void> {
  let logger: Logger = createLogger({ service: SERVICE, level: 'info' });
  let host: LocalHost | undefined;
  let timings: ShutdownTimings | undefined;
  const fail = (message: string) => (error: unknown) => {
    logger.error({ errorCode: 'internal_error', ...errorFields(error) }, message);
    process.exit(1);
  };
  process.on('uncaughtException', fail('uncaught exception in the local host'));
  process.on('unhandledRejection', fail('unhandled rejection in the local host'));

  try {
    const appRoot = process.cwd();
    // Tests start the host with an exact environment; a developer's local.settings.json must not leak in.
    if (process.env.DEVHOST_SKIP_LOCAL_SETTINGS !== 'true') applySettings(readLocalSettings(appRoot), process.env);
    const config = loadConfig(process.env);
    logger = createLogger({ service: SERVICE, level: config.logLevel, pretty: config.logPretty });
    timings = shutdownTimings(config.shutdownGraceSeconds * 1000);
    host = await startLocalHost({ appRoot, config, settings: process.env, logger });
    logger.info({ port: host.port, functionCount: host.functionCount }, 'local host listening');
  } catch (error) {
    fail('local host failed to start')(error);
    return;
  }

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without a clean shutdown');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, graceMs: timings?.graceMs }, 'local host stopping');
    if (timings) {
      // The platform's SIGKILL ends the grace period: exiting just before it keeps the exit ours.
      const exitMs = timings.exitMs;
      setTimeout(() => {
        const error = new Error(`The local host did not stop within ${exitMs} ms of ${signal}.`);
        logger.error({ errorCode: 'shutdown_timeout', ...errorFields(error) }, 'local host did not stop in time; exiting');
        process.exit(1);
      }, exitMs).unref();
    }
    host
      ?.stop(timings ? { drainMs: timings.drainMs } : {})
      .then(() => {
        logger.info('local host stopped');
        process.exit(0);
      })
      .catch(fail('clean shutdown failed'));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

void main();
