import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { measureLoggerCost, type LoggerCostOptions, type LoggerCostResult } from './logger-cost';

const run = promisify(execFile);

/**
 * `measureLoggerCost` in a fresh process of its own: its heap and JIT hold nothing of the bench's
 * other sections (latency arrays, the HTTP client, the app modules the bench imports), so both
 * loggers are timed in the same clean state.
 */
export async function measureLoggerCostInProcess(options: LoggerCostOptions): Promise<LoggerCostResult> {
  const { stdout } = await run(process.execPath, [__filename, JSON.stringify(options)], {
    env: { PATH: process.env.PATH ?? '' },
    maxBuffer: 1024 ** 2,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as LoggerCostResult;
}

if (require.main === module) {
  measureLoggerCost(JSON.parse(process.argv[2] ?? '{}') as LoggerCostOptions)
    .then((result) => process.stdout.write(`${JSON.stringify(result)}\n`))
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    });
}
