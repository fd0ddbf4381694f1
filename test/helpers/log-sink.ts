import { Writable } from 'node:stream';
import { parseLogLine } from './log-schema';

/** Every sink made in the running test file, checked after each test by test/setup/validate-log-sinks.ts. */
export const liveSinks = new Set<LogSink>();

/**
 * A pino destination that keeps every line in memory (pino's "sink" pattern for tests) and checks
 * each one against the log-line schema as it arrives; lines that fail are kept in `invalidLines`
 * and fail the test that wrote them.
 */
export class LogSink extends Writable {
  readonly raw: string[] = [];
  readonly invalidLines: { line: string; reason: string }[] = [];
  private readonly parsed: Record<string, unknown>[] = [];

  constructor() {
    super();
    liveSinks.add(this);
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    for (const line of chunk.toString().split('\n')) {
      if (line.length === 0) continue;
      this.raw.push(line);
      try {
        this.parsed.push(parseLogLine(line));
      } catch (error) {
        this.invalidLines.push({ line, reason: (error as Error).message });
      }
    }
    callback();
  }

  /** Every captured line that passed the schema. */
  get lines(): Record<string, unknown>[] {
    return [...this.parsed];
  }

  /** The lines whose message is `message`. */
  withMessage(message: string): Record<string, unknown>[] {
    return this.parsed.filter((line) => line.message === message);
  }

  /** All captured text, for canary searches. */
  get text(): string {
    return this.raw.join('\n');
  }
}
