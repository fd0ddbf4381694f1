import { declaredDefault } from '../settings/setting-declarations';
import type { SqlExecutor, TransactionExecutor } from '../db/database';
import type { Logger } from '../logging/logger';
import type { Random } from '../ports/random';
import {
  insertAdultFailure,
  pruneAdultFailures,
  readAdultFailureWindows,
  type AdultFailureWindows,
  type FailureWindow,
} from './adult-sign-in-throttle-store';
import { adultAddressThrottleKey } from './throttle-keys';
import { UNKNOWN_CLIENT_ADDRESS, warnOnceWithoutAddress } from './unknown-client-address';

/**
 * Adult sign-in limits (`POST /api/v1/auth/session`), kept in the database so every instance sees
 * the same counts: at most `addressMaxFailures` failed sign-ins per client address in any
 * `addressWindowMs` (30 in 10 minutes), and at most `globalMaxFailuresPerMinute` from all
 * addresses together in any minute (60). Each failure counts for exactly its window (a sliding log).
 *
 * Only failures are ever refused. An ID token cannot be guessed, so unlike a child's PIN there is
 * nothing to slow down before verifying: the token is verified first (local cryptography against
 * the cached JWKS) and a valid one signs in whatever the counts, so a flood of invalid tokens can
 * never lock real adults out. What the limits stop is the failure's cost: its `authn_login_fail`
 * row in the append-only AuditLog, its log line, its database work. A failure the throttle refuses
 * gets 429 and no audit row; the failure that closes a limit writes one `throttled` row for all the
 * refusals that follow, so a flood adds at most the limits' own number of rows.
 *
 * Flow: `checkAdultThrottle(db, …)` for a failure (429 when closed), then, in the transaction that
 * audits it, `recordAdultFailure(tx, …)`, which takes one lock for every adult failure (SQL
 * Server's snapshot reads would otherwise let concurrent failures all pass the same count),
 * checks again, prunes and records. The lock serializes failures only, at most the global limit's
 * worth per minute plus the bursts the door check let through; a failure that waits for it longer
 * than `FAILURES_LOCK_WAIT_MS` is refused with 429 and `Retry-After: 1`, unrecorded.
 */

export interface AdultSignInLimits {
  /** Failed sign-ins one client address may have in `addressWindowMs`. */
  addressMaxFailures: number;
  addressWindowMs: number;
  /** Failed sign-ins all addresses together may have in any minute. */
  globalMaxFailuresPerMinute: number;
}

/** The declared defaults of the `ADULT_SIGN_IN_*` settings, as limits. */
export const DEFAULT_ADULT_SIGN_IN_LIMITS: AdultSignInLimits = {
  addressMaxFailures: declaredDefault('ADULT_SIGN_IN_ADDRESS_MAX_FAILURES'),
  addressWindowMs: declaredDefault('ADULT_SIGN_IN_ADDRESS_WINDOW_MINUTES') * 60 * 1000,
  globalMaxFailuresPerMinute: declaredDefault('ADULT_SIGN_IN_GLOBAL_MAX_FAILURES_PER_MINUTE'),
};

/** The global ceiling counts failures per minute. */
export const GLOBAL_WINDOW_MS = 60 * 1000;

export { UNKNOWN_CLIENT_ADDRESS } from './unknown-client-address';

/** The lock every adult failure is recorded under. */
const FAILURES_LOCK = 'sign-in:adult-failures';

/**
 * How long a failure waits for that lock. Recording one takes milliseconds, so a longer wait means
 * a queue of failures (a flood): such a failure is refused (429) rather than left holding a pooled
 * connection and an open transaction behind the others, and ending as a 503.
 */
export const FAILURES_LOCK_WAIT_MS = 300;

/** The refusal of a failure that did not get the lock in time: a second is enough for the queue to move. */
export const LOCK_BUSY_REFUSAL: AdultThrottleRefusal = { allowed: false, retryAfterSeconds: 1, scope: 'global', lockBusy: true };

export interface AdultThrottleRefusal {
  allowed: false;
  /** Whole seconds until a failure would be recorded again: the `Retry-After` value (≥ 1). */
  retryAfterSeconds: number;
  /** Which limit is closed; when both are, the one that stays closed longer. */
  scope: 'address' | 'global';
  /** Set when no limit was full but the failures' lock stayed busy (`FAILURES_LOCK_WAIT_MS`). */
  lockBusy?: true;
}

export type AdultThrottleDecision = { allowed: true } | AdultThrottleRefusal;

export type AdultFailureRecord =
  | {
      allowed: true;
      /** The limits this failure filled: each is closed from now on, for `retryAfterSeconds`. */
      closes: AdultThrottleRefusal[];
    }
  | AdultThrottleRefusal;

/**
 * The adult sign-in's throttle as the composition root builds it once per process: the limits, and
 * the key of a client address, which says once (a warn line) when attempts come without one.
 */
export interface AdultSignInThrottle {
  readonly limits: AdultSignInLimits;
  /**
   * The key an attempt's failures count under. Without a client address (no trusted proxy hop, or
   * a request that did not come through it) every such attempt shares one key: the limit still
   * holds, for all of them together, rather than not at all.
   */
  addressKey(clientAddress: string | null): string;
}

export interface AdultSignInThrottleOptions {
  /** `config.hashingSecret`, the HMAC key: the address is kept only as its HMAC. */
  pepper: string;
  limits: AdultSignInLimits;
  logger: Logger;
  /** `config.trustProxyHops`, named in the warn line. */
  trustProxyHops: number;
}

/** Builds the process's `AdultSignInThrottle`. */
export function createAdultSignInThrottle(options: AdultSignInThrottleOptions): AdultSignInThrottle {
  const warn = warnOnceWithoutAddress({
    logger: options.logger,
    trustProxyHops: options.trustProxyHops,
    message: 'adult sign-in failures without a client address share one address limit',
    maxFailures: options.limits.addressMaxFailures,
  });
  // On first use, not at start: the address parser's first run (node:net's IPv6 check) costs
  // milliseconds of every cold start otherwise.
  let unknownKey: string | undefined;
  return {
    limits: options.limits,
    addressKey(clientAddress) {
      if (clientAddress !== null) return adultAddressThrottleKey(options.pepper, clientAddress);
      warn();
      unknownKey ??= adultAddressThrottleKey(options.pepper, UNKNOWN_CLIENT_ADDRESS);
      return unknownKey;
    },
  };
}

/**
 * May a failed sign-in be recorded (401), or is it refused (429)? Reads only: a flood of refused
 * attempts writes nothing.
 * @param db the database.
 * @param addressKey `throttle.addressKey(clientAddress)`.
 * @param now the clock's time.
 */
export async function checkAdultThrottle(
  db: SqlExecutor,
  addressKey: string,
  limits: AdultSignInLimits,
  now: Date,
): Promise<AdultThrottleDecision> {
  const windows = await readAdultFailureWindows(db, addressKey, windowStarts(limits, now));
  return adultThrottleRefusal(windows, limits, now) ?? { allowed: true };
}

/**
 * Records a failed sign-in in the caller's transaction, unless a limit closed since the door check,
 * or the failures' lock stayed busy for `FAILURES_LOCK_WAIT_MS` (`LOCK_BUSY_REFUSAL`); then it
 * records nothing and the caller answers 429 as the check would have. Take it first in the
 * transaction (its lock before any row). Also deletes failures that have left every window.
 * @param tx the transaction that writes the failure's audit row.
 * @param addressKey `throttle.addressKey(clientAddress)`.
 * @param now the clock's time.
 * @param random makes the row's id.
 */
export async function recordAdultFailure(
  tx: TransactionExecutor,
  addressKey: string,
  limits: AdultSignInLimits,
  now: Date,
  random: Random,
): Promise<AdultFailureRecord> {
  if (!(await tx.tryLock(FAILURES_LOCK, { timeoutMs: FAILURES_LOCK_WAIT_MS }))) return LOCK_BUSY_REFUSAL;
  const starts = windowStarts(limits, now);
  await pruneAdultFailures(tx, starts.addressWindowStart < starts.globalWindowStart ? starts.addressWindowStart : starts.globalWindowStart);
  const windows = await readAdultFailureWindows(tx, addressKey, starts);
  const refused = adultThrottleRefusal(windows, limits, now);
  if (refused) return refused;
  const failedAt = now.toISOString();
  await insertAdultFailure(tx, { id: random.uuid(), addressKey, failedAt });
  return { allowed: true, closes: closedBy(windows, failedAt, limits, now) };
}

/**
 * The refusal the windows call for, if any: a limit is closed while its window holds as many
 * failures as it allows, until the oldest of them leaves the window (rounded up to whole seconds,
 * so a client that waits `Retry-After` is not refused for a fraction of one).
 */
export function adultThrottleRefusal(windows: AdultFailureWindows, limits: AdultSignInLimits, now: Date): AdultThrottleRefusal | undefined {
  const addressWait = waitSeconds(windows.address, limits.addressMaxFailures, limits.addressWindowMs, now);
  const globalWait = waitSeconds(windows.global, limits.globalMaxFailuresPerMinute, GLOBAL_WINDOW_MS, now);
  if (addressWait === 0 && globalWait === 0) return undefined;
  return addressWait >= globalWait
    ? { allowed: false, retryAfterSeconds: addressWait, scope: 'address' }
    : { allowed: false, retryAfterSeconds: globalWait, scope: 'global' };
}

/**
 * The limits a failure recorded at `failedAt` filled, given the windows before it: each one whose
 * count reaches its maximum with it. Recording takes turns, so a limit fills exactly once before
 * it is refused; that is when its one audit row is written.
 */
export function closedBy(before: AdultFailureWindows, failedAt: string, limits: AdultSignInLimits, now: Date): AdultThrottleRefusal[] {
  const withIt = (window: FailureWindow): FailureWindow => ({
    failures: window.failures + 1,
    oldestFailedAt: window.oldestFailedAt ?? failedAt,
  });
  const closes: AdultThrottleRefusal[] = [];
  const addressWait = waitSeconds(withIt(before.address), limits.addressMaxFailures, limits.addressWindowMs, now);
  if (addressWait > 0) closes.push({ allowed: false, retryAfterSeconds: addressWait, scope: 'address' });
  const globalWait = waitSeconds(withIt(before.global), limits.globalMaxFailuresPerMinute, GLOBAL_WINDOW_MS, now);
  if (globalWait > 0) closes.push({ allowed: false, retryAfterSeconds: globalWait, scope: 'global' });
  return closes;
}

/** 0 below the maximum; else the seconds until the oldest failure leaves the window (at least 1). */
function waitSeconds(window: FailureWindow, maxFailures: number, windowMs: number, now: Date): number {
  if (window.failures < maxFailures) return 0;
  const oldest = window.oldestFailedAt === null ? now.getTime() : Date.parse(window.oldestFailedAt);
  const remainingMs = oldest + windowMs - now.getTime();
  return Math.max(1, Math.ceil(remainingMs / 1000));
}

/** Failures at or before these instants have left the address window and the global one. */
function windowStarts(limits: AdultSignInLimits, now: Date): { addressWindowStart: string; globalWindowStart: string } {
  return {
    addressWindowStart: new Date(now.getTime() - limits.addressWindowMs).toISOString(),
    globalWindowStart: new Date(now.getTime() - GLOBAL_WINDOW_MS).toISOString(),
  };
}
