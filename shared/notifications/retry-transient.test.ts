import { describe, expect, it } from 'vitest';
import { recordingSleep, transient500 } from '../../test/notifications/notification-fixtures';
import type { DeliveryOutcome } from './providers/delivery';
import { DEFAULT_RETRY_POLICY, sendWithRetries } from './retry-transient';

function answers(...outcomes: DeliveryOutcome[]): { send: () => Promise<DeliveryOutcome>; calls: () => number } {
  let calls = 0;
  return {
    send: async () => outcomes[Math.min(calls++, outcomes.length - 1)] as DeliveryOutcome,
    calls: () => calls,
  };
}

describe('retries of transient provider errors', () => {
  it('waits 200 ms then 800 ms and gives up after 3 tries', async () => {
    const sleep = recordingSleep();
    const retries: number[] = [];
    const provider = answers(transient500);
    const { outcome, tries } = await sendWithRetries(provider.send, {
      policy: DEFAULT_RETRY_POLICY,
      sleep,
      onRetry: (_outcome, failedTries) => retries.push(failedTries),
    });
    expect(outcome).toEqual(transient500);
    expect(tries).toBe(3);
    expect(provider.calls()).toBe(3);
    expect(sleep.waits).toEqual([200, 800]);
    expect(retries).toEqual([1, 2]);
  });

  it('stops at the first answer that is not transient', async () => {
    const sleep = recordingSleep();
    const provider = answers(transient500, { result: 'success', providerMessageId: 'm1' });
    const result = await sendWithRetries(provider.send, { policy: DEFAULT_RETRY_POLICY, sleep, onRetry: () => undefined });
    expect(result).toEqual({ outcome: { result: 'success', providerMessageId: 'm1' }, tries: 2 });
    expect(sleep.waits).toEqual([200]);
  });

  it('never retries a permanent error', async () => {
    const sleep = recordingSleep();
    const provider = answers({ result: 'provider_error', code: 'http_400', transient: false });
    const result = await sendWithRetries(provider.send, { policy: DEFAULT_RETRY_POLICY, sleep, onRetry: () => undefined });
    expect(result.tries).toBe(1);
    expect(sleep.waits).toEqual([]);
  });

  it("waits for the provider's Retry-After when it is longer, and leaves a long one to the queue", async () => {
    const sleep = recordingSleep();
    const soon = answers({ result: 'provider_error', code: 'http_503', transient: true, retryAfterMs: 1500 }, { result: 'success' });
    expect((await sendWithRetries(soon.send, { policy: DEFAULT_RETRY_POLICY, sleep, onRetry: () => undefined })).tries).toBe(2);
    expect(sleep.waits).toEqual([1500]);
    const late = answers({ result: 'provider_error', code: 'http_429', transient: true, retryAfterMs: 30_000 });
    const result = await sendWithRetries(late.send, { policy: DEFAULT_RETRY_POLICY, sleep, onRetry: () => undefined });
    expect(result.tries).toBe(1);
    expect(sleep.waits).toEqual([1500]);
  });
});
