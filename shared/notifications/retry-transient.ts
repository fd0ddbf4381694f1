import type { Sleep } from '../resilience/retry-with-backoff';
import type { DeliveryOutcome } from './providers/delivery';

/**
 * Bounded retries of transient provider errors inside one invocation: 3 tries, waiting 200 ms then
 * 800 ms (×4 each time), or the provider's `Retry-After` when it asks for longer (up to 2 s). What
 * is still transient after that is left to the queue, which redelivers the message; the ledger
 * keeps that from sending anything twice.
 */
export interface RetryPolicy {
  tries: number;
  firstDelayMs: number;
  factor: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { tries: 3, firstDelayMs: 200, factor: 4 };


/**
 * The longest `Retry-After` waited out inside an invocation; a provider asking for more gets its
 * pause from the queue's redelivery instead of holding the invocation.
 */
export const MAX_IN_INVOCATION_WAIT_MS = 2000;

/**
 * The wait before try `failedTries + 1`: the backoff, or the provider's `Retry-After` when longer.
 * Undefined when no further try should happen in this invocation.
 */
export function retryDelayMs(policy: RetryPolicy, failedTries: number, outcome?: DeliveryOutcome): number | undefined {
  if (failedTries >= policy.tries) return undefined;
  const backoff = policy.firstDelayMs * policy.factor ** (failedTries - 1);
  const asked = outcome?.result === 'provider_error' ? (outcome.retryAfterMs ?? 0) : 0;
  if (asked > MAX_IN_INVOCATION_WAIT_MS) return undefined;
  return Math.max(backoff, asked);
}

export function isTransient(outcome: DeliveryOutcome): boolean {
  return outcome.result === 'provider_error' && outcome.transient;
}

/**
 * Calls `send` until its outcome is not a transient error or the tries run out.
 * @param onRetry told about each transient failure that will be retried (for its warn line).
 */
export async function sendWithRetries(
  send: () => Promise<DeliveryOutcome>,
  options: { policy: RetryPolicy; sleep: Sleep; onRetry: (outcome: DeliveryOutcome, failedTries: number, delayMs: number) => void },
): Promise<{ outcome: DeliveryOutcome; tries: number }> {
  for (let tries = 1; ; tries += 1) {
    const outcome = await send();
    const delayMs = isTransient(outcome) ? retryDelayMs(options.policy, tries, outcome) : undefined;
    if (delayMs === undefined) return { outcome, tries };
    options.onRetry(outcome, tries, delayMs);
    await options.sleep(delayMs);
  }
}
