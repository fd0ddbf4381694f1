import { describe, expect, it } from 'vitest';
import { transient500 } from '../../../test/notifications/notification-fixtures';
import { DEFAULT_RETRY_POLICY, isTransient, retryDelayMs } from './retry-transient';

describe('retries of transient provider errors', () => {
  it('waits 200 ms then 800 ms and gives up after 3 tries', () => {
    expect([1, 2, 3].map((failedTries) => retryDelayMs(DEFAULT_RETRY_POLICY, failedTries, transient500))).toEqual([200, 800, undefined]);
  });

  it('retries transient errors only', () => {
    expect(isTransient(transient500)).toBe(true);
    expect(isTransient({ result: 'provider_error', code: 'http_400', transient: false })).toBe(false);
    expect(isTransient({ result: 'success' })).toBe(false);
  });

  it("waits for the provider's Retry-After when it is longer, and leaves a long one to the queue", () => {
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, { result: 'provider_error', code: 'http_503', transient: true, retryAfterMs: 1500 })).toBe(1500);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, { result: 'provider_error', code: 'http_429', transient: true, retryAfterMs: 30_000 })).toBeUndefined();
  });
});
