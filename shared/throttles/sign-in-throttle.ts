import type { SqlExecutor, TransactionExecutor } from '../db/database';
import { cryptoRandom, type Random } from '../ports/random';
import {
  clearUsernameFailures,
  incrementUsernameFailures,
  insertAddressFailure,
  pruneAddressFailures,
  pruneUsernameFailures,
  readAddressWindow,
  readUsernameFailures,
  type UsernameFailures,
} from './sign-in-throttle-store';
import type { ThrottleKeys } from './throttle-keys';

/**
 * Child sign-in throttling (contract section 6), kept in the database so every instance sees the
 * same counts.
 *
 * Per username (existing or not, so the answers reveal nothing): after 3 consecutive failures,
 * each further attempt must wait 2^(n-3) seconds after the last failure (n = consecutive failures;
 * the wait is capped at 15 minutes); from the 10th on, the caller locks an existing account. A
 * success resets the count. Per client address: at most 30 failures in any 10 minutes (a sliding
 * window: each failure counts for exactly 10 minutes).
 *
 * Flow: `checkThrottle(db, …)` before verifying (429 when refused); then, in the transaction that
 * locks the account or creates the session, `lockThrottle(tx, keys)` first, then
 * `recordFailure(lock, …)` or `recordSuccess(lock, …)`. Both check the throttle once more before
 * recording: Argon2 verifications queue, so a burst of requests can all pass the first check
 * before any of them fails. The locks make those re-checks take turns on every engine and across
 * instances (SQL Server's snapshot reads would otherwise let concurrent settlements all see the
 * same count): the username's for every settlement, the address's too for a failure. Attempts
 * that find the throttle closed on settling are refused exactly like at the door — same 429,
 * nothing recorded, whether the secret was right or wrong — so a burst yields no more effective
 * guesses than patient sequential tries, and a 429 never tells which guess was right. Bursts of correct sign-ins (a
 * class signing in behind one address) are not slowed at all: only failures close the throttle.
 */

export const SIGN_IN_THROTTLE_POLICY = {
  /** Consecutive failures allowed before attempts must wait. */
  freeFailures: 3,
  /** The wait never exceeds 15 minutes. */
  maxWaitSeconds: 15 * 60,
  /** Consecutive failures at which an existing account is locked. */
  lockAfterFailures: 10,
  addressWindowMs: 10 * 60 * 1000,
  addressMaxFailures: 30,
} as const;

/** How long a username's failures are kept without a new one, by default (see `pruneSignInThrottle`). */
export const DEFAULT_USERNAME_IDLE_MS = 30 * 24 * 60 * 60 * 1000;

export interface ThrottleRefusal {
  allowed: false;
  /** Whole seconds until an attempt can be let through: the `Retry-After` value (≥ 1). */
  retryAfterSeconds: number;
  /** What closed the throttle; when both did, the one that stays closed longer. */
  scope: 'username' | 'address';
}

export type ThrottleDecision = { allowed: true } | ThrottleRefusal;

export type FailureRecord =
  | {
      allowed: true;
      /** The username's consecutive failures, this one included. */
      consecutiveFailures: number;
      /** True from the 10th consecutive failure on: lock the account if it exists (idempotently). */
      lockNow: boolean;
    }
  | ThrottleRefusal;

/**
 * Proof that a settlement transaction holds the lock of one attempt's username: recording takes
 * one, so no count is read and written without it.
 */
export interface ThrottleLock {
  readonly tx: TransactionExecutor;
  readonly keys: ThrottleKeys;
}

/**
 * Takes the lock of the attempt's username for the rest of `tx`: the first thing a settlement
 * does, before it touches any row, success and failure alike. A failure then also takes the
 * address's lock (`recordFailure`), always second, so no two settlements wait for each other in
 * a circle. Successes do not take the address lock: a class signing in behind one address is not
 * made to take turns. The price: a right PIN settling just as another username's failure fills
 * the address's cap may still get in; the per-username limits hold regardless.
 * @param tx the settlement transaction.
 * @param keys the attempt's keys.
 */
export async function lockThrottle(tx: TransactionExecutor, keys: ThrottleKeys): Promise<ThrottleLock> {
  await lockUsernameThrottle(tx, keys.usernameKey);
  return { tx, keys };
}

/**
 * Takes the lock of a username's throttle, for a change of the child account behind it (a new
 * secret, disabling, deletion): it waits for a sign-in settling on that account, and a sign-in
 * waits for it. Take it first in the transaction.
 * @param usernameKey `usernameThrottleKey(pepper, username)`.
 */
export async function lockUsernameThrottle(tx: TransactionExecutor, usernameKey: string): Promise<void> {
  await tx.lock(`sign-in:username:${usernameKey}`);
}

export interface RecordFailureOptions {
  /** Makes the ids of address-failure rows; default the CSPRNG. */
  random?: Random;
}

/**
 * May a sign-in attempt go ahead? Reads only, apart from deleting address failures that have left
 * the window (every instance's, so the table stays small). Pass the database itself, so that this
 * prune commits on its own and holds no locks in a transaction.
 * @param db the database.
 * @param keys `throttleKeys(...)` of the attempt.
 * @param now the clock's time.
 */
export async function checkThrottle(db: SqlExecutor, keys: ThrottleKeys, now: Date): Promise<ThrottleDecision> {
  await pruneAddressFailures(db, addressWindowStart(now));
  return (await refusal(db, keys, now)) ?? { allowed: true };
}

/**
 * Records a failed sign-in (wrong secret, unknown username or locked account: all three must look
 * alike), unless the throttle closed while it was verified; then it records nothing and the
 * caller answers 429 exactly as `checkThrottle` would have.
 * @param lock `lockThrottle(tx, keys)` of the sign-in transaction.
 * @param now the clock's time.
 */
export async function recordFailure(lock: ThrottleLock, now: Date, options: RecordFailureOptions = {}): Promise<FailureRecord> {
  const { tx, keys } = lock;
  // Failures from one address (any usernames) take turns too, so its cap holds under a burst.
  await tx.lock(`sign-in:address:${keys.addressKey}`);
  const refused = await refusal(tx, keys, now);
  if (refused) return refused;
  const failedAt = now.toISOString();
  const consecutiveFailures = await incrementUsernameFailures(tx, keys.usernameKey, failedAt);
  await insertAddressFailure(tx, { id: (options.random ?? cryptoRandom).uuid(), addressKey: keys.addressKey, failedAt });
  return { allowed: true, consecutiveFailures, lockNow: consecutiveFailures >= SIGN_IN_THROTTLE_POLICY.lockAfterFailures };
}

/**
 * Records a proven secret (even if the account then turns out pending or disabled): the username's
 * failures are forgotten. Unless the throttle closed while the secret was verified: then nothing
 * is recorded and the caller answers 429, not a session (see the module comment for why).
 * Address failures stay: a success does not excuse the other failures from that address.
 * @param lock `lockThrottle(tx, keys)` of the sign-in transaction.
 * @param now the clock's time.
 */
export async function recordSuccess(lock: ThrottleLock, now: Date): Promise<ThrottleDecision> {
  const { tx, keys } = lock;
  const refused = await refusal(tx, keys, now);
  if (refused) return refused;
  await clearUsernameFailures(tx, keys.usernameKey);
  return { allowed: true };
}

/**
 * Forgets a username's failures outside a sign-in: call it when the parent sets a new secret (which
 * also lifts the lock), so the child does not start one failure away from a new lock. Inside a
 * transaction, take `lockUsernameThrottle` first.
 * @param executor a transaction's `tx` or the database.
 * @param usernameKey `usernameThrottleKey(pepper, username)`.
 */
export async function resetUsernameFailures(executor: SqlExecutor, usernameKey: string): Promise<void> {
  await clearUsernameFailures(executor, usernameKey);
}

/**
 * Deletes throttle rows that no longer matter, for a periodic sweep: address failures outside the
 * window (also pruned by every `checkThrottle`), and usernames without a failure since
 * `now - usernameIdleMs`. Dropping an idle username forgets its count: with the default of 30 days
 * an attacker gets at most 9 guesses per username per 30 days without causing a lock.
 * @returns how many rows of each kind went.
 */
export async function pruneSignInThrottle(
  executor: SqlExecutor,
  now: Date,
  options: { usernameIdleMs?: number } = {},
): Promise<{ addressFailures: number; usernames: number }> {
  const idleSince = new Date(now.getTime() - (options.usernameIdleMs ?? DEFAULT_USERNAME_IDLE_MS));
  return {
    addressFailures: await pruneAddressFailures(executor, addressWindowStart(now)),
    usernames: await pruneUsernameFailures(executor, idleSince.toISOString()),
  };
}

/**
 * Whole seconds the username must still wait (0: may try now): 2^(n-3) s after the last of
 * n ≥ 3 consecutive failures, at most 15 minutes, rounded up so a client that waits `Retry-After`
 * seconds is never refused for a fraction of one.
 */
export function usernameWaitSeconds(failures: UsernameFailures | undefined, now: Date): number {
  if (!failures || failures.consecutiveFailures < SIGN_IN_THROTTLE_POLICY.freeFailures) return 0;
  const exponent = Math.min(failures.consecutiveFailures - SIGN_IN_THROTTLE_POLICY.freeFailures, 30);
  const waitMs = Math.min(2 ** exponent, SIGN_IN_THROTTLE_POLICY.maxWaitSeconds) * 1000;
  return secondsUntil(Date.parse(failures.lastFailureAt) + waitMs, now);
}

async function refusal(executor: SqlExecutor, keys: ThrottleKeys, now: Date): Promise<ThrottleRefusal | undefined> {
  const usernameWait = usernameWaitSeconds(await readUsernameFailures(executor, keys.usernameKey), now);
  const addressWait = await addressWaitSeconds(executor, keys.addressKey, now);
  if (usernameWait === 0 && addressWait === 0) return undefined;
  return usernameWait >= addressWait
    ? { allowed: false, retryAfterSeconds: usernameWait, scope: 'username' }
    : { allowed: false, retryAfterSeconds: addressWait, scope: 'address' };
}

/**
 * 0 while the address has fewer than 30 failures in the window; else the seconds until its oldest
 * leaves the window. (Should instances racing have logged more than 30, the client may be sent
 * back once more then.)
 */
async function addressWaitSeconds(executor: SqlExecutor, addressKey: string, now: Date): Promise<number> {
  const window = await readAddressWindow(executor, addressKey, addressWindowStart(now));
  if (window.failures < SIGN_IN_THROTTLE_POLICY.addressMaxFailures) return 0;
  const oldest = window.oldestFailedAt === null ? now.getTime() : Date.parse(window.oldestFailedAt);
  return Math.max(1, secondsUntil(oldest + SIGN_IN_THROTTLE_POLICY.addressWindowMs, now));
}

/** Failures at or before this instant have left the address window. */
function addressWindowStart(now: Date): string {
  return new Date(now.getTime() - SIGN_IN_THROTTLE_POLICY.addressWindowMs).toISOString();
}

function secondsUntil(instantMs: number, now: Date): number {
  const remainingMs = instantMs - now.getTime();
  return remainingMs > 0 ? Math.ceil(remainingMs / 1000) : 0;
}
