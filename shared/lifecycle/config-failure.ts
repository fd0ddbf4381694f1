import type { DestinationStream } from 'pino';
import { ConfigError, DEFAULT_SERVICE_NAME } from '../config';
import { createLogger, errorFields } from '../logging/logger';

/** The `errorCode` of the line that says the settings are invalid (alerts and runbooks look for it). */
export const CONFIG_INVALID = 'config_invalid';

export interface ConfigFailureOptions {
  /** Tests capture the line; the app writes it to stdout, synchronously, before it exits. */
  destination?: DestinationStream;
  /** Where the one plain-text line goes (stderr). */
  writeStderr?: (text: string) => void;
  exit?: (code: number) => never;
}

/**
 * Ends the process because its settings are invalid, loudly, under any host. The Functions worker
 * catches what an entry file throws while it loads, answers the host's metadata request with
 * success and no functions, and prints the error to stderr only: the app would run, healthy-looking
 * and serving nothing. So the error is written as one JSON error line on stdout
 * (`errorCode: config_invalid`, the names of the settings to fix and what each needs, never a
 * value), one plain line on stderr (the host keeps the last stderr lines in the worker's exit
 * error; the word "error" makes the host record it as one), and the process exits 1: the platform sees a crash loop and the unhealthy-container
 * alert fires.
 * @returns never for a `ConfigError`; any other error is thrown again, untouched.
 */
export function exitOnConfigError(error: unknown, options: ConfigFailureOptions = {}): never {
  if (!(error instanceof ConfigError)) throw error;
  const logger = createLogger({
    service: DEFAULT_SERVICE_NAME,
    level: 'error',
    ...(options.destination ? { destination: options.destination } : {}),
  });
  const settings = error.settings;
  logger.error({ errorCode: CONFIG_INVALID, settings, problems: error.problems, ...errorFields(error) }, 'invalid configuration: the app cannot start');
  const writeStderr = options.writeStderr ?? ((text: string) => process.stderr.write(text));
  writeStderr(`Configuration error (config_invalid): fix ${settings.length > 0 ? settings.join(', ') : 'the settings'}; the app exits.\n`);
  return (options.exit ?? ((code: number) => process.exit(code)))(1);
}
