import { Writable } from 'node:stream';
import { parseLogLine } from './log-schema';

/**
 * A pino destination that keeps every line in memory (pino's "sink" pattern for tests) and checks
 * each one against the log-line schema as it arrives.
 */
export class LogSink extends Writable {
  readonly raw: string[] = [];

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    for (const line of chunk.toString().split('\n')) {
      if (line.length > 0) this.raw.push(line);
    }
    callback();
  }

  /** Every captured line, parsed and validated. */
  get lines(): Record<string, unknown>[] {
    return this.raw.map(parseLogLine);
  }

  /** The lines whose message is `message`. */
  withMessage(message: string): Record<string, unknown>[] {
    return this.lines.filter((line) => line.message === message);
  }

  /** All captured text, for canary searches. */
  get text(): string {
    return this.raw.join('\n');
  }
}
