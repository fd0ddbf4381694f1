import { declaredDefault } from './setting-declarations';

/**
 * The schedule of a shutdown inside the platform's grace period: Container Apps sends SIGTERM, then
 * SIGKILL `terminationGracePeriodSeconds` later (`infra/` sets it; `SHUTDOWN_GRACE_SECONDS` must
 * match). The grace is split so each step still has time after the one before it:
 * - `deadlineMs`: provider calls still in flight are aborted (one deadline for all of them);
 * - `drainMs`: hosts stop waiting for invocations (their rows were released at the deadline, the
 *   failed invocation made its queue message visible again);
 * - `exitMs`: the process exits whatever is still running, before the platform kills it.
 * Between the last two: the telemetry flush and the database close.
 */

/** The declared default of `SHUTDOWN_GRACE_SECONDS`: Container Apps' grace period (Kubernetes' too), which `infra/` sets explicitly. */
export const DEFAULT_SHUTDOWN_GRACE_SECONDS = declaredDefault('SHUTDOWN_GRACE_SECONDS');

/**
 * What the Functions host gives the worker after its `WorkerTerminate` message before it kills the
 * worker process (`WorkerConstants.WorkerTerminateGracePeriodInSeconds` in azure-functions-host,
 * `GrpcWorkerChannel.StopWorkerProcess`). The Node library passes no grace period to
 * `appTerminate` hooks, so the app assumes this one when that hook is its first notice.
 */
export const WORKER_TERMINATE_GRACE_MS = 5_000;

/**
 * How long the stop waits, once the work it drained has settled, before it lets the process end:
 * an invocation's answer leaves through the worker's gRPC stream only after the handler settled
 * (the library converts the result, the worker writes it, HTTP/2 sends it on a later turn of the
 * event loop), and the Node.js worker calls `process.exit` as soon as the `appTerminate` hooks
 * resolve. A few turns suffice on a local socket; this leaves room for a busy loop.
 */
export const ANSWERS_LEAVE_MS = 100;

/** The most the steps after the deadline are given: releasing rows, flushing telemetry, closing the database. */
const MAX_MARGIN_MS = 10_000;

export interface ShutdownTimings {
  graceMs: number;
  /** After termination begins: provider calls still in flight are aborted. */
  deadlineMs: number;
  /** After termination begins: hosts stop waiting for invocations in flight. */
  drainMs: number;
  /** After termination begins: the process exits, whatever still runs. */
  exitMs: number;
}

/**
 * The schedule for a grace period of `graceMs`: the deadline leaves a third of the grace (at most
 * 10 s) for what follows it; 30 s gives 20 s, 25 s and 28 s.
 */
export function shutdownTimings(graceMs: number): ShutdownTimings {
  if (!Number.isFinite(graceMs) || graceMs <= 0) throw new RangeError('a grace period must be a positive number of milliseconds');
  const margin = Math.min(MAX_MARGIN_MS, graceMs / 3);
  return {
    graceMs,
    deadlineMs: Math.round(graceMs - margin),
    drainMs: Math.round(graceMs - margin / 2),
    exitMs: Math.round(graceMs - margin / 5),
  };
}
