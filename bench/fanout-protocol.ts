import type { BatchTally } from '../shared/notifications/delivery-context';

/**
 * The messages between the bench and its fan-out worker process (over the `fork` IPC channel):
 * the worker says `ready` once its services are built and the database is open, the bench answers
 * `run` when it is watching the worker's memory, the worker answers `done` (or `failed`).
 */

/** How often the worker reads its V8 heap use during the run. */
export const HEAP_SAMPLE_MS = 50;

export interface FanoutRun {
  kind: 'run';
  announcementId: string;
  parallelBatches: number;
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
  /** The highest V8 heap use among readings every `HEAP_SAMPLE_MS`: memory that is JavaScript objects. */
  peakHeapUsedBytes: number;
  /** Log lines the worker wrote (to a sink that drops them), and how many were warn or error. */
  logLines: number;
  warnOrErrorLines: number;
}

export interface FanoutFailed {
  kind: 'failed';
  error: string;
}

export type FanoutWorkerMessage = FanoutReady | FanoutDone | FanoutFailed;
