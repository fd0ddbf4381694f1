import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The time a request chain may spend on retries, so that retries deep inside it (a database
 * deadlock, a failover) stop in time for the caller to get a clear answer instead of a hang. The
 * HTTP pipeline and the background wrapper start a budget; code below reads how much is left. It
 * bounds when a retry may start, not how long one attempt takes (the driver's own timeouts do).
 */

/** An HTTP request: no retry starts after this, so a failing dependency soon becomes a 503 with Retry-After. */
export const HTTP_REQUEST_BUDGET_MS = 10_000;

/** A timer or queue invocation: well inside the queue's visibility and the host's function timeout. */
export const BACKGROUND_BUDGET_MS = 60_000;

const storage = new AsyncLocalStorage<{ deadline: number }>();

/**
 * Runs `work` with a budget of `budgetMs` from now. A budget already running that ends sooner
 * stays in force: a nested call never extends its caller's time.
 * @param now the clock, in epoch milliseconds (tests pass their own).
 */
export function runWithTimeBudget<T>(budgetMs: number, work: () => T, now: () => number = Date.now): T {
  const outer = storage.getStore()?.deadline;
  const deadline = now() + budgetMs;
  return storage.run({ deadline: outer === undefined ? deadline : Math.min(outer, deadline) }, work);
}

/** When the running budget ends (epoch milliseconds), or undefined outside any budget. */
export function budgetDeadline(): number | undefined {
  return storage.getStore()?.deadline;
}
