import { budgetDeadline } from './time-budget';

/**
 * Retries of an operation that failed for a passing reason (a deadlock victim, a database that is
 * failing over), with jittered exponential backoff, bounded by a number of attempts and by the
 * running time budget (`time-budget.ts`). Whether a failure may be retried is the caller's call:
 * only an operation that surely left nothing behind may run again.
 */

export interface BackoffPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** The backoff before the second attempt; it doubles for each further one. */
  baseDelayMs: number;
  /** No single wait is longer. */
  maxDelayMs: number;
}

/** Azure SQL's guidance: a few seconds in all, the first retry after a short pause. */
export const DATABASE_RETRY_POLICY: BackoffPolicy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 2000 };

export interface BackoffRun {
  /** True when `error` may be retried: the failed attempt changed nothing. */
  isRetriable(error: unknown): boolean;
  /** Told of each retry before its wait (for its warn line). */
  onRetry(error: unknown, retry: { attempt: number; delayMs: number }): void;
  /** Waits `ms`; tests pass one that does not. */
  sleep?: Sleep;
  /** A number in [0, 1) for the jitter. */
  random?: () => number;
  /** Epoch milliseconds now. */
  now?: () => number;
  /** The latest time a retry may start; default the running time budget's end, if any. */
  deadline?: number;
}

/** Waits `ms` milliseconds; injected so tests do not wait. */
export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The wait before attempt `attempt + 1`: half of the capped exponential step, plus up to the
 * other half at random ("equal jitter"), so instances that failed together do not retry together
 * yet every retry still backs off.
 */
export function backoffDelayMs(policy: BackoffPolicy, attempt: number, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * Runs `operation` until it resolves, fails with an error that may not be retried, runs out of
 * attempts, or would have to wait past the deadline; then its last error is thrown.
 * @param operation told its attempt number, from 1.
 */
export async function retryWithBackoff<T>(operation: (attempt: number) => Promise<T>, policy: BackoffPolicy, run: BackoffRun): Promise<T> {
  const sleep = run.sleep ?? realSleep;
  const random = run.random ?? Math.random;
  const now = run.now ?? Date.now;
  const deadline = run.deadline ?? budgetDeadline();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (attempt >= policy.maxAttempts || !run.isRetriable(error)) throw error;
      const delayMs = backoffDelayMs(policy, attempt, random);
      if (deadline !== undefined && now() + delayMs >= deadline) throw error;
      run.onRetry(error, { attempt, delayMs });
      await sleep(delayMs);
    }
  }
}
