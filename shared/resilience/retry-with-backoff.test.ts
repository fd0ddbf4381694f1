import { describe, expect, it } from 'vitest';
import { budgetDeadline, runWithTimeBudget } from './time-budget';
import { backoffDelayMs, retryWithBackoff, type BackoffPolicy } from './retry-with-backoff';

const POLICY: BackoffPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 300 };

describe('backoffDelayMs', () => {
  it('doubles up to the cap, with half of each step at random', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffDelayMs(POLICY, attempt, () => 0))).toEqual([50, 100, 150, 150]);
    expect([1, 2, 3, 4].map((attempt) => backoffDelayMs(POLICY, attempt, () => 0.999999))).toEqual([100, 200, 300, 300]);
  });
});

describe('retryWithBackoff', () => {
  const transient = new Error('transient');
  const fatal = new Error('fatal');

  it('retries what may be retried until it succeeds, telling each retry', async () => {
    const seen: number[] = [];
    const waits: number[] = [];
    const result = await retryWithBackoff(
      async (attempt) => {
        seen.push(attempt);
        if (attempt < 3) throw transient;
        return 'ok';
      },
      POLICY,
      { isRetriable: (error) => error === transient, onRetry: (_error, retry) => waits.push(retry.delayMs), sleep: async () => undefined, random: () => 0 },
    );
    expect(result).toBe('ok');
    expect(seen).toEqual([1, 2, 3]);
    expect(waits).toEqual([50, 100]);
  });

  it('gives up at once on what may not be retried, and after the last attempt otherwise', async () => {
    let calls = 0;
    const run = { isRetriable: (error: unknown) => error === transient, onRetry: () => undefined, sleep: async () => undefined };
    await expect(retryWithBackoff(async () => { calls += 1; throw fatal; }, POLICY, run)).rejects.toBe(fatal);
    expect(calls).toBe(1);
    calls = 0;
    await expect(retryWithBackoff(async () => { calls += 1; throw transient; }, POLICY, run)).rejects.toBe(transient);
    expect(calls).toBe(POLICY.maxAttempts);
  });

  it('never waits past the time budget', async () => {
    let now = 0;
    let calls = 0;
    const run = { isRetriable: () => true, onRetry: () => undefined, sleep: async (ms: number) => void (now += ms), random: () => 0, now: () => now };
    await expect(
      runWithTimeBudget(120, () => retryWithBackoff(async () => { calls += 1; throw transient; }, POLICY, run), () => now),
    ).rejects.toBe(transient);
    // Waits of 50 then 100 ms: the second would end at 150 ms, past the 120 ms budget.
    expect(calls).toBe(2);
  });
});

describe('runWithTimeBudget', () => {
  it('never lets a nested budget outlast its caller', () => {
    expect(budgetDeadline()).toBeUndefined();
    runWithTimeBudget(1000, () => {
      expect(budgetDeadline()).toBe(1000);
      runWithTimeBudget(5000, () => expect(budgetDeadline()).toBe(1000), () => 0);
      runWithTimeBudget(200, () => expect(budgetDeadline()).toBe(200), () => 0);
    }, () => 0);
  });
});
