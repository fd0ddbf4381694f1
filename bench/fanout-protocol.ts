import type { BatchTally } from '../shared/notifications/engine/delivery-context';
import type { SqliteTime } from './sqlite-timing';

/**
 * The messages between the bench and its fan-out worker process (over the `fork` IPC channel):
 * the worker says `ready` once its services are built and the database is open, the bench answers
 * `run` when it is watching the worker's memory, the worker says `timed` when the fan-out has
 * ended (the bench reads the fakes' request counts then), and `done` (or `failed`) after its
 * after-run check. Instead of `run`, the bench may send `adapter`: the worker then sends messages
 * through one channel's provider adapter alone (no ledger, no log lines) and answers `timed`, then
 * `adapter-done`.
 */

/** How often the worker reads its V8 heap use during the run. */
export const HEAP_SAMPLE_MS = 50;

export interface FanoutRun {
  kind: 'run';
  announcementId: string;
  parallelBatches: number;
  /**
   * After the timed run (outside it): ask ACS once for one e-mail operation's state through the
   * adapter's `operationOutcome` (the settle timer's path), to show the fake really keeps the
   * operations running while the send path never polls.
   */
  checkEmailOperation: boolean;
}

/** Sends `messages` fictitious messages through the composed `channel` adapter, `concurrency` at a time. */
export interface AdapterRun {
  kind: 'adapter';
  channel: 'sms' | 'email';
  messages: number;
  concurrency: number;
}

export interface AdapterDone {
  kind: 'adapter-done';
  /** Outcomes by result (`accepted` expected). */
  results: Record<string, number>;
  wallMs: number;
  cpuMs: number;
  cpuSystemMs: number;
  eventLoopUtilization: number;
  peakHeapUsedBytes: number;
}

export interface FanoutReady {
  kind: 'ready';
  /** The delivery concurrency the worker's fan-out ports use (per batch invocation). */
  deliveryConcurrency: number;
  batchSize: number;
}

export interface FanoutDone {
  kind: 'done';
  recipients: number;
  batches: number;
  tally: BatchTally;
  failedBatches: number;
  /** The first failed batch's error (bench data only: fictitious addresses). */
  firstFailure?: string;
  /** From the first message (the split) to the last batch's end. */
  wallMs: number;
  /** CPU time the worker used meanwhile (user + system): near `wallMs`, it was CPU-bound on one core. */
  cpuMs: number;
  /** Of `cpuMs`, the time in the kernel (system calls: sockets, SQLite's file writes). */
  cpuSystemMs: number;
  /**
   * The share of `wallMs` the event loop was busy (`performance.eventLoopUtilization`): near 1, the
   * worker's one thread was the limit, whether computing (`cpuMs`) or blocked in synchronous I/O.
   */
  eventLoopUtilization: number;
  /** Time inside SQLite statements during the run (synchronous: the event loop waited), and the largest. */
  sqlite: SqliteTime;
  /** The highest V8 heap use among readings every `HEAP_SAMPLE_MS`: memory that is JavaScript objects. */
  peakHeapUsedBytes: number;
  /** Log lines the worker wrote (to a sink that drops them), and how many were warn or error. */
  logLines: number;
  warnOrErrorLines: number;
  /** `checkEmailOperation`: what the one status request after the run answered (`running`, or a result). */
  emailOperationCheck?: string;
}

export interface FanoutTimed {
  kind: 'timed';
}

export interface FanoutFailed {
  kind: 'failed';
  error: string;
}

export type FanoutWorkerMessage = FanoutReady | FanoutTimed | FanoutDone | AdapterDone | FanoutFailed;

export type FanoutBenchMessage = FanoutRun | AdapterRun;
