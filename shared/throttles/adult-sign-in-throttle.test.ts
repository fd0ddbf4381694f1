import { describe, expect, it } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import type { TransactionExecutor } from '../db/database';
import { createLogger } from '../logging/logger';
import type { Random } from '../ports/random';
import {
  adultThrottleRefusal,
  closedBy,
  createAdultSignInThrottle,
  DEFAULT_ADULT_SIGN_IN_LIMITS,
  FAILURES_LOCK_WAIT_MS,
  GLOBAL_WINDOW_MS,
  recordAdultFailure,
  type AdultSignInLimits,
} from './adult-sign-in-throttle';
import type { AdultFailureWindows, FailureWindow } from './adult-sign-in-throttle-store';
import { throttleKeys } from './throttle-keys';

const PEPPER = 'unit-test-pepper-0123456789abcdefghijklmn';
const NOW = new Date('2031-01-02T03:04:05.000Z');
const LIMITS: AdultSignInLimits = DEFAULT_ADULT_SIGN_IN_LIMITS;

/** A window of `failures` whose oldest is `ageMs` old. */
function window(failures: number, ageMs = 0): FailureWindow {
  return { failures, oldestFailedAt: failures === 0 ? null : new Date(NOW.getTime() - ageMs).toISOString() };
}

function windows(address: FailureWindow, global: FailureWindow = window(0)): AdultFailureWindows {
  return { address, global };
}

describe('the adult sign-in limits', () => {
  it('are 30 failures per address in 10 minutes and 60 per minute in all, by default', () => {
    expect(DEFAULT_ADULT_SIGN_IN_LIMITS).toEqual({ addressMaxFailures: 30, addressWindowMs: 10 * 60 * 1000, globalMaxFailuresPerMinute: 60 });
    expect(GLOBAL_WINDOW_MS).toBe(60 * 1000);
  });

  it('let failures through below each limit', () => {
    expect(adultThrottleRefusal(windows(window(0)), LIMITS, NOW)).toBeUndefined();
    expect(adultThrottleRefusal(windows(window(29, 599_000), window(59, 59_000)), LIMITS, NOW)).toBeUndefined();
  });

  it('close an address at its 30th failure until the oldest leaves the window, rounded up to whole seconds', () => {
    expect(adultThrottleRefusal(windows(window(30, 1)), LIMITS, NOW)).toEqual({ allowed: false, retryAfterSeconds: 600, scope: 'address' });
    expect(adultThrottleRefusal(windows(window(30, 120_500)), LIMITS, NOW)).toEqual({ allowed: false, retryAfterSeconds: 480, scope: 'address' });
    // Never 0: a refusal always asks for at least a second.
    expect(adultThrottleRefusal(windows(window(30, 600_000)), LIMITS, NOW)).toEqual({ allowed: false, retryAfterSeconds: 1, scope: 'address' });
    // A lowered limit leaves more failures in the window than it allows: still closed.
    expect(adultThrottleRefusal(windows(window(45, 10_000)), LIMITS, NOW)).toMatchObject({ scope: 'address', retryAfterSeconds: 590 });
  });

  it('close for everyone at the global limit, and name the limit that stays closed longer', () => {
    expect(adultThrottleRefusal(windows(window(1), window(60, 15_000)), LIMITS, NOW)).toEqual({ allowed: false, retryAfterSeconds: 45, scope: 'global' });
    expect(adultThrottleRefusal(windows(window(30, 590_000), window(60, 15_000)), LIMITS, NOW)).toEqual({
      allowed: false,
      retryAfterSeconds: 45,
      scope: 'global',
    });
    expect(adultThrottleRefusal(windows(window(30, 500_000), window(60, 15_000)), LIMITS, NOW)).toEqual({
      allowed: false,
      retryAfterSeconds: 100,
      scope: 'address',
    });
  });

  it('say which limits a recorded failure fills: only the one that reaches its maximum with it', () => {
    const at = NOW.toISOString();
    expect(closedBy(windows(window(28, 1000), window(58, 1000)), at, LIMITS, NOW)).toEqual([]);
    expect(closedBy(windows(window(29, 1000), window(10, 1000)), at, LIMITS, NOW)).toEqual([
      { allowed: false, retryAfterSeconds: 599, scope: 'address' },
    ]);
    expect(closedBy(windows(window(3, 1000), window(59, 20_000)), at, LIMITS, NOW)).toEqual([
      { allowed: false, retryAfterSeconds: 40, scope: 'global' },
    ]);
    // A limit of one is filled by the first failure, whose own time then starts the wait.
    const strict = { addressMaxFailures: 1, addressWindowMs: 60_000, globalMaxFailuresPerMinute: 1 };
    expect(closedBy(windows(window(0)), at, strict, NOW)).toEqual([
      { allowed: false, retryAfterSeconds: 60, scope: 'address' },
      { allowed: false, retryAfterSeconds: 60, scope: 'global' },
    ]);
  });
});

describe('createAdultSignInThrottle', () => {
  function throttleWith(sink: LogSink) {
    const logger = createLogger({ service: 'api', level: 'info', destination: sink });
    return createAdultSignInThrottle({ pepper: PEPPER, limits: LIMITS, logger, trustProxyHops: 0 });
  }

  it('keys an address by an HMAC of its bucket, apart from the child sign-in key of the same address', () => {
    const throttle = throttleWith(new LogSink());
    const key = throttle.addressKey('203.0.113.7');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(throttle.addressKey('203.0.113.8')).not.toBe(key);
    expect(throttle.addressKey('::ffff:203.0.113.7')).toBe(key);
    expect(throttle.addressKey('2001:db8:1:2::1')).toBe(throttle.addressKey('2001:db8:1:2:ffff::9'));
    expect(key).not.toBe(throttleKeys(PEPPER, 'someone', '203.0.113.7').addressKey);
  });

  it('puts every attempt without a client address under one key, and says so once in a warn line', () => {
    const sink = new LogSink();
    const throttle = throttleWith(sink);
    expect(sink.lines).toEqual([]);
    const unknown = throttle.addressKey(null);
    expect(throttle.addressKey(null)).toBe(unknown);
    expect(throttle.addressKey('203.0.113.7')).not.toBe(unknown);
    throttle.addressKey(null);
    const warnings = sink.withMessage('adult sign-in failures without a client address share one address limit');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 'warn', trustProxyHops: 0, maxFailures: 30 });
    expect(sink.lines).toHaveLength(1);
  });
});

describe('recordAdultFailure', () => {
  /** A transaction whose failures' lock is busy or free; it records each request it gets. */
  function transaction(granted: boolean) {
    const requests: string[] = [];
    const tx: TransactionExecutor = {
      query: async (sql) => {
        requests.push(sql);
        return [];
      },
      execute: async (sql) => {
        requests.push(sql);
        return 1;
      },
      lock: async (resource) => void requests.push(`lock ${resource}`),
      tryLock: async (resource, options) => {
        requests.push(`tryLock ${resource} ${options?.timeoutMs}`);
        return granted;
      },
    };
    return { tx, requests };
  }
  const random: Random = { uuid: () => '6f1c2d3e-4b5a-4c6d-8e7f-8091a2b3c4d5', bytes: (n) => new Uint8Array(n) };

  it('waits at most FAILURES_LOCK_WAIT_MS for the lock, then refuses for a second and records nothing', async () => {
    const busy = transaction(false);
    expect(FAILURES_LOCK_WAIT_MS).toBeLessThanOrEqual(500);
    expect(await recordAdultFailure(busy.tx, 'a'.repeat(64), LIMITS, NOW, random)).toEqual({
      allowed: false,
      retryAfterSeconds: 1,
      scope: 'global',
      lockBusy: true,
    });
    expect(busy.requests).toEqual([`tryLock sign-in:adult-failures ${FAILURES_LOCK_WAIT_MS}`]);
  });

  it('counts and records the failure once it has the lock', async () => {
    const free = transaction(true);
    const recorded = await recordAdultFailure(free.tx, 'a'.repeat(64), LIMITS, NOW, random);
    expect(recorded).toEqual({ allowed: true, closes: [] });
    expect(free.requests[0]).toBe(`tryLock sign-in:adult-failures ${FAILURES_LOCK_WAIT_MS}`);
    expect(free.requests.some((sql) => sql.startsWith('INSERT INTO AdultSignInFailures'))).toBe(true);
  });
});
