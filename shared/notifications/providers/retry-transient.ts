import type { DeliveryOutcome } from '../../ports/delivery';

/**
 * Bounded retries of transient provider errors inside one invocation: 3 tries, waiting 200 ms then
 * 800 ms (×4 each time), or the provider's `Retry-After` when it asks for longer (up to 2 s). What
 * is still transient after that is left to the queue, which redelivers the message; the ledger
 * keeps that from sending anything twice. Push batches retry here (`deliver-push.ts`); the ACS SDK
 * clients take the same tries and first delay as their own pipeline's retry options.
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
