import { Console } from 'node:console';

/** The console methods that write to stdout by default. */
const STDOUT_METHODS = ['log', 'info', 'debug', 'dir', 'dirxml', 'table', 'group', 'groupCollapsed', 'count', 'countReset', 'time', 'timeEnd', 'timeLog'] as const;

/**
 * Sends every console method to stderr so the host's stdout carries nothing but JSON log lines
 * (the app's and the host's own); library chatter such as `@azure/functions` warnings stays
 * visible in the terminal without breaking a log shipper or a test that parses stdout.
 */
export function redirectConsoleToStderr(): void {
  const stderrConsole = new Console({ stdout: process.stderr, stderr: process.stderr });
  for (const method of [...STDOUT_METHODS, 'warn', 'trace'] as const) {
    // Reassigning the global console's methods keeps references other modules hold to `console` working.
    (console as unknown as Record<string, unknown>)[method] = stderrConsole[method].bind(stderrConsole);
  }
}
