import { performance } from 'node:perf_hooks';
import pino, { type DestinationStream, type Logger } from 'pino';
import { runWithLogContext, type LogContext } from '../shared/logging/log-context';
import { createLogger, errorFields } from '../shared/logging/logger';
import { median } from './stats';

/** The cost of one line shape through the project's logger and through plain pino. */
export interface LoggerCostShape {
  /** `request`, `delivery` or `error` (see `SHAPES`). */
  shape: string;
  /** Median over the repeats of the project's logger's nanoseconds per line. */
  projectNsPerLine: number;
  /** Median over the repeats of plain pino's nanoseconds per line (same output fields). */
  plainNsPerLine: number;
  /** project ÷ plain, one ratio per repeat (each from the same repeat's two runs): its spread. */
  ratio: { min: number; median: number; max: number };
}

/** What `measureLoggerCost` measured: one row per line shape. */
export interface LoggerCostResult {
  /** Lines written per logger, shape and repeat. */
  lines: number;
  /** Interleaved repeats per shape (after one warm-up round that is not counted). */
  repeats: number;
  shapes: LoggerCostShape[];
}

export interface LoggerCostOptions {
  /** Lines per logger, shape and repeat; default 20,000. */
  lines?: number;
  /** Interleaved repeats; default 10, at least 1. */
  repeats?: number;
}

/**
 * A sink as cheap as a sink can be, the same for both loggers: it keeps only a running length, so
 * the measured cost is building the line, not writing it.
 */
function discardingSink(): DestinationStream & { bytes: number } {
  return {
    bytes: 0,
    write(chunk: string) {
      this.bytes += chunk.length;
    },
  };
}

interface Shape {
  name: string;
  level: 'info' | 'error';
  message: string;
  /** What the request chain's log context holds while the line is written. */
  context: LogContext;
  /** A fresh fields object per line, as the app's call sites build one. */
  fields: (index: number) => Record<string, unknown>;
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const USER_ID = '3f0c1a9e-2b4d-4c8e-9a7b-1d2e3f4a5b6c';

/** A stack like the fan-out's provider errors carry, built once: making errors is not the logger's cost. */
const PROVIDER_ERROR = errorFields(
  (function sendThroughProvider() {
    return new Error('sms provider answered 503 (ServiceUnavailable)');
  })(),
);

/** The line shapes the hot paths write: the HTTP pipeline's, the fan-out's per attempt, and an error line. */
const SHAPES: readonly Shape[] = [
  {
    name: 'request',
    level: 'info',
    message: 'request handled',
    context: { traceId: TRACE_ID, userId: USER_ID, requestId: 'f6a1c2d3-4e5f-4a6b-8c7d-9e0f1a2b3c4d', endpoint: 'GET /api/v1/me' },
    fields: (index) => ({ statusCode: 200, durationMs: index % 500 }),
  },
  {
    name: 'delivery',
    level: 'info',
    message: 'delivery attempt',
    context: { traceId: TRACE_ID, userId: null, service: 'notifications' },
    fields: (index) => ({
      announcementId: '9b2e7c1d-0f3a-4b5c-8d6e-7f8091a2b3c4',
      recipientUserId: USER_ID,
      channel: 'push',
      result: 'success',
      tries: 1 + (index % 3),
    }),
  },
  {
    name: 'error',
    level: 'error',
    message: 'delivery attempt',
    context: { traceId: TRACE_ID, userId: null, service: 'notifications' },
    fields: (index) => ({
      announcementId: '9b2e7c1d-0f3a-4b5c-8d6e-7f8091a2b3c4',
      recipientUserId: USER_ID,
      channel: 'sms',
      result: 'provider_error',
      tries: 1 + (index % 3),
      transient: true,
      provider: { kind: 'acs', status: 503, retry: { afterMs: 1000, attempts: [1, 2, 3] } },
      errorCode: 'provider_error',
      ...PROVIDER_ERROR,
    }),
  },
];

/** Plain pino writing the same fields: the context's fields as bindings, serialized once, as plain pino would. */
function plainLogger(shape: Shape, sink: DestinationStream): Logger {
  const root = pino(
    {
      level: 'info',
      messageKey: 'message',
      base: null,
      // pino's isoTime, under the contract's key.
      timestamp: () => `,"timestamp":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
    },
    sink,
  );
  const { service = 'api', ...context } = shape.context;
  return root.child({ service, ...context });
}

/** Milliseconds for `lines` lines of `shape` through `logger`. */
function timeLines(logger: Logger, shape: Shape, lines: number): number {
  const start = performance.now();
  for (let index = 0; index < lines; index += 1) logger[shape.level](shape.fields(index), shape.message);
  return performance.now() - start;
}

/** Each round alternates the two loggers this many times, so a burst of load from elsewhere lands on both. */
const SLICES_PER_ROUND = 10;

/** One round: nanoseconds per line through each logger, `lines` lines each, in alternating slices. */
function round(project: Logger, plain: Logger, shape: Shape, lines: number, projectFirst: boolean): { project: number; plain: number } {
  const slice = Math.max(1, Math.ceil(lines / SLICES_PER_ROUND));
  let projectMs = 0;
  let plainMs = 0;
  // The project's logger reads the request chain's context, as in the app; plain pino has it as bindings.
  runWithLogContext({ ...shape.context }, () => {
    for (let done = 0; done < lines; done += slice) {
      const count = Math.min(slice, lines - done);
      if (projectFirst) projectMs += timeLines(project, shape, count);
      plainMs += timeLines(plain, shape, count);
      if (!projectFirst) projectMs += timeLines(project, shape, count);
    }
  });
  return { project: (projectMs * 1e6) / lines, plain: (plainMs * 1e6) / lines };
}

/**
 * The cost of a log line through the project's logger (`createLogger`, level info, a sink that
 * discards) against plain pino with the same base fields, timestamp and message key, in one
 * process: for each shape, a warm-up round and then `repeats` rounds of `lines` lines through each
 * logger, interleaved in slices (which of the two goes first alternates per round).
 */
export async function measureLoggerCost(options: LoggerCostOptions = {}): Promise<LoggerCostResult> {
  const lines = Math.max(1, Math.floor(options.lines ?? 20_000));
  const repeats = Math.max(1, Math.floor(options.repeats ?? 10));
  const shapes: LoggerCostShape[] = [];
  for (const shape of SHAPES) {
    const project = createLogger({ service: 'api', level: 'info', destination: discardingSink() });
    const plain = plainLogger(shape, discardingSink());
    const projectNs: number[] = [];
    const plainNs: number[] = [];
    const ratios: number[] = [];
    round(project, plain, shape, lines, true); // warm-up: the JIT's first tiers
    for (let index = 0; index < repeats; index += 1) {
      const measured = round(project, plain, shape, lines, index % 2 === 0);
      projectNs.push(measured.project);
      plainNs.push(measured.plain);
      ratios.push(measured.project / measured.plain);
      // Lets timers and I/O of the host process run between rounds instead of inside one.
      await new Promise((resolve) => setImmediate(resolve));
    }
    shapes.push({
      shape: shape.name,
      projectNsPerLine: median(projectNs),
      plainNsPerLine: median(plainNs),
      ratio: { min: Math.min(...ratios), median: median(ratios), max: Math.max(...ratios) },
    });
  }
  return { lines, repeats, shapes };
}

/**
 * One line of each shape through each logger, as written: the check that the two loggers write the
 * same fields, so the ratio compares like with like.
 */
export function sampleLoggerLines(): Array<{ shape: string; project: string; plain: string }> {
  return SHAPES.map((shape) => {
    const written = { project: '', plain: '' };
    const project = createLogger({ service: 'api', level: 'info', destination: { write: (line: string) => (written.project += line) } });
    const plain = plainLogger(shape, { write: (line: string) => (written.plain += line) });
    runWithLogContext({ ...shape.context }, () => project[shape.level](shape.fields(7), shape.message));
    plain[shape.level](shape.fields(7), shape.message);
    return { shape: shape.name, ...written };
  });
}

/** The result as a plain-text table. */
export function formatLoggerCost(result: LoggerCostResult): string {
  const header = ['shape', 'project ns/line', 'pino ns/line', 'ratio min', 'ratio median', 'ratio max'];
  const rows = result.shapes.map((row) => [
    row.shape,
    row.projectNsPerLine.toFixed(0),
    row.plainNsPerLine.toFixed(0),
    row.ratio.min.toFixed(2),
    row.ratio.median.toFixed(2),
    row.ratio.max.toFixed(2),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const format = (cells: string[]): string => cells.map((cell, column) => cell.padStart(widths[column] ?? 0)).join('  ');
  return [`${result.lines} lines x ${result.repeats} repeats per shape`, format(header), ...rows.map(format)].join('\n');
}

if (require.main === module) {
  // `node dist/bench/logger-cost.js [--lines N] [--repeats N]`
  const number = (flag: string): number | undefined => {
    const at = process.argv.indexOf(flag);
    const value = at === -1 ? Number.NaN : Number(process.argv[at + 1]);
    return Number.isFinite(value) ? value : undefined;
  };
  measureLoggerCost({ lines: number('--lines'), repeats: number('--repeats') })
    .then((result) => process.stdout.write(`${formatLoggerCost(result)}\n`))
    .catch((error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exitCode = 1;
    });
}
