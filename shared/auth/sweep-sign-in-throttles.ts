import type { DatabaseProvider } from '../db/lazy-database';
import type { Logger } from '../logging/logger';
import type { Clock } from '../ports/clock';
import { GLOBAL_WINDOW_MS, type AdultSignInLimits } from '../throttles/adult-sign-in-throttle';
import { pruneAdultFailuresBatch } from '../throttles/adult-sign-in-throttle-store';
import { DEFAULT_USERNAME_IDLE_MS, SIGN_IN_THROTTLE_POLICY } from '../throttles/sign-in-throttle';
import { pruneAddressFailuresBatch, pruneUsernameFailuresBatch } from '../throttles/sign-in-throttle-store';
import { pruneReleasedUsernamesBatch } from '../users/account-erasure-store';

/**
 * The throttle tables' part of the hourly sweep: rows that can no longer change an
 * answer are deleted, so a guesser submitting fresh usernames cannot grow the tables for ever.
 * - `SignInUsernameFailures`: a username's failures still count towards its lock until it has been
 *   idle `usernameIdleMs` (30 days: at most 9 guesses per username per 30 days without a lock).
 * - `SignInAddressFailures`: a failure counts for the address's 10-minute window only.
 * - `AdultSignInFailures`: a failure counts for the longer of the address window and the global minute.
 * - `ReservedUsernames`: an erased child's username reservation, once released (it holds a key only).
 * The sign-ins themselves prune the address tables too, but only while failures keep coming.
 * Each batch is one statement of its own (no transaction around them), so no lock is held for
 * longer than one batch takes; a run stops after `maxBatches` per table and the next run goes on.
 */

export interface ThrottleSweepDeps {
  database: DatabaseProvider;
  clock: Clock;
  logger: Logger;
  config: { adultSignInLimits: AdultSignInLimits };
}

export interface ThrottleSweepOptions {
  /** Rows deleted per statement. */
  batchSize?: number;
  /** Statements per table and run. */
  maxBatches?: number;
  /** Default `DEFAULT_USERNAME_IDLE_MS` (30 days). */
  usernameIdleMs?: number;
}

export interface ThrottleSweepResult {
  usernames: number;
  addressFailures: number;
  adultFailures: number;
  reservedUsernames: number;
  /** True when a table still had rows to delete when the run stopped at `maxBatches`. */
  more: boolean;
}

const DEFAULT_BATCH_SIZE = 500;
const DEFAULT_MAX_BATCHES = 40;

/**
 * Deletes expired throttle rows, batch by batch, up to `batchSize × maxBatches` per table.
 * @returns how many rows of each table went.
 */
export async function sweepSignInThrottles(deps: ThrottleSweepDeps, options: ThrottleSweepOptions = {}): Promise<ThrottleSweepResult> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const maxBatches = options.maxBatches ?? DEFAULT_MAX_BATCHES;
  const db = await deps.database.get();
  const now = deps.clock.now().getTime();
  const before = (ms: number): string => new Date(now - ms).toISOString();
  const adultWindowMs = Math.max(deps.config.adultSignInLimits.addressWindowMs, GLOBAL_WINDOW_MS);
  let more = false;
  const drain = async (deleteBatch: (limit: number) => Promise<number>): Promise<number> => {
    let total = 0;
    for (let batch = 0; batch < maxBatches; batch += 1) {
      const deleted = await deleteBatch(batchSize);
      total += deleted;
      if (deleted < batchSize) return total;
    }
    more = true;
    return total;
  };
  const result = {
    usernames: await drain((limit) => pruneUsernameFailuresBatch(db, before(options.usernameIdleMs ?? DEFAULT_USERNAME_IDLE_MS), limit)),
    addressFailures: await drain((limit) => pruneAddressFailuresBatch(db, before(SIGN_IN_THROTTLE_POLICY.addressWindowMs), limit)),
    adultFailures: await drain((limit) => pruneAdultFailuresBatch(db, before(adultWindowMs), limit)),
    reservedUsernames: await drain((limit) => pruneReleasedUsernamesBatch(db, before(0), limit)),
  };
  const fields = { ...result, more };
  if (result.usernames + result.addressFailures + result.adultFailures + result.reservedUsernames > 0 || more) deps.logger.info(fields, 'sign-in throttle rows swept');
  else deps.logger.debug(fields, 'sign-in throttle rows swept');
  return { ...result, more };
}
