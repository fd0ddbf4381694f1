import { createLogger, type Logger } from '../../shared/logging/logger';

/** The local host's logger in tests, writing into arrays instead of stdout. */
export interface HostLogCapture {
  logger: Logger;
  /** Lines since the test last cleared it (`lines.length = 0`). */
  lines: string[];
  /** Every line ever written, for the log-schema check. */
  allLines: string[];
  /** `lines`, parsed. */
  logged(): Record<string, unknown>[];
}

/** A `local-host` logger at debug level whose lines the test reads back. */
export function captureHostLogs(): HostLogCapture {
  const lines: string[] = [];
  const allLines: string[] = [];
  const logger = createLogger({
    service: 'local-host',
    level: 'debug',
    destination: { write: (line: string) => void (lines.push(line), allLines.push(line)) },
  });
  return { logger, lines, allLines, logged: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
