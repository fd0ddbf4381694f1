import { beforeEach, describe, expect, it } from 'vitest';
import {
  checkThrottle,
  lockThrottle,
  pruneSignInThrottle,
  recordFailure,
  recordSuccess,
  resetUsernameFailures,
  SIGN_IN_THROTTLE_POLICY,
  type FailureRecord,
  type ThrottleDecision,
} from '../../shared/throttles/sign-in-throttle';
import {
  incrementUsernameFailures,
  pruneAddressFailuresBatch,
  pruneUsernameFailuresBatch,
  readAddressWindow,
  readUsernameFailures,
} from '../../shared/throttles/sign-in-throttle-store';
import { throttleKeys, usernameThrottleKey, type ThrottleKeys } from '../../shared/throttles/throttle-keys';
import type { Database } from '../../shared/db/database';
import { manualClock } from '../../shared/ports/clock';
import { sequentialRandom, type Random } from '../../shared/ports/random';
import { isoAfter, migratedDatabasePerSuite } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

const PEPPER = 'contract-pepper-0123456789abcdefghijklmnop';
const ADDRESS = '198.51.100.23';
const START = '2025-06-01T10:00:00.123Z';
const WINDOW_MS = SIGN_IN_THROTTLE_POLICY.addressWindowMs;

const keysFor = (username: string, address = ADDRESS): ThrottleKeys => throttleKeys(PEPPER, username, address);
const refused = (retryAfterSeconds: number, scope: 'username' | 'address' = 'username') => ({ allowed: false, retryAfterSeconds, scope });

/**
 * Registers the contract suite of sign-in throttling (`shared/throttles/sign-in-throttle.ts` over
 * `sign-in-throttle-store.ts`) for one engine: the counters, the address window and pruning.
 * @param name the engine, shown in the suite's title.
 * @param factory the suite's database.
 */
export function describeSignInThrottleContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Sign-in throttle store contract: ${name}`, () => {
    const database = migratedDatabasePerSuite(factory);
    const clock = manualClock(START);
    let random: Random;

    beforeEach(() => {
      clock.set(START);
      random = sequentialRandom();
    });

    /** One sign-in as the endpoint runs it: check, then settle in a transaction. */
    async function signIn(db: Database, keys: ThrottleKeys, secretIsRight: boolean): Promise<ThrottleDecision | FailureRecord> {
      const gate = await checkThrottle(db, keys, clock.now());
      if (!gate.allowed) return gate;
      return db.transaction(async (tx) => {
        const lock = await lockThrottle(tx, keys);
        return secretIsRight ? recordSuccess(lock, clock.now()) : recordFailure(lock, clock.now(), { random });
      });
    }

    it('counts consecutive failures per username and reads them back exactly', async () => {
      const db = database();
      const keys = keysFor('mia.lund');
      expect(await readUsernameFailures(db, keys.usernameKey)).toBeUndefined();
      for (let n = 1; n <= 3; n += 1) {
        expect(await signIn(db, keys, false)).toEqual({ allowed: true, consecutiveFailures: n, lockNow: false });
        clock.advance(250);
      }
      const lastFailureAt = isoAfter(START, 500);
      expect(await readUsernameFailures(db, keys.usernameKey)).toEqual({ consecutiveFailures: 3, lastFailureAt });
      // The third failure closes the throttle for 2^0 s after it.
      expect(await checkThrottle(db, keys, clock.now())).toEqual(refused(1));
      expect(await checkThrottle(db, keysFor('someone.else'), clock.now())).toEqual({ allowed: true });
      clock.set(isoAfter(lastFailureAt, 1000));
      expect(await checkThrottle(db, keys, clock.now())).toEqual({ allowed: true });
    });

    it('asks to lock from the tenth consecutive failure on', async () => {
      const db = database();
      const keys = keysFor('mia.lund');
      for (let n = 1; n <= 11; n += 1) {
        const failures = await readUsernameFailures(db, keys.usernameKey);
        if (failures && failures.consecutiveFailures >= SIGN_IN_THROTTLE_POLICY.freeFailures) {
          clock.set(isoAfter(failures.lastFailureAt, 2 ** (failures.consecutiveFailures - SIGN_IN_THROTTLE_POLICY.freeFailures) * 1000));
        }
        expect(await signIn(db, keys, false)).toEqual({ allowed: true, consecutiveFailures: n, lockNow: n >= 10 });
      }
    });

    it('forgets the username failures on a success and on a reset', async () => {
      const db = database();
      const keys = keysFor('mia.lund');
      await signIn(db, keys, false);
      await signIn(db, keys, false);
      expect(await signIn(db, keys, true)).toEqual({ allowed: true });
      expect(await readUsernameFailures(db, keys.usernameKey)).toBeUndefined();
      await signIn(db, keys, false);
      await resetUsernameFailures(db, usernameThrottleKey(PEPPER, 'mia.lund'));
      expect(await readUsernameFailures(db, keys.usernameKey)).toBeUndefined();
      expect(await signIn(db, keys, false)).toMatchObject({ consecutiveFailures: 1 });
    });

    it('loses no count when failures of one username arrive at once', async () => {
      const db = database();
      const key = usernameThrottleKey(PEPPER, 'burst');
      const at = clock.now().toISOString();
      await Promise.all(Array.from({ length: 12 }, () => incrementUsernameFailures(db, key, at)));
      expect(await readUsernameFailures(db, key)).toEqual({ consecutiveFailures: 12, lastFailureAt: at });
    });

    it('refuses an address with 30 failures in the window until the oldest leaves it', async () => {
      const db = database();
      for (let n = 0; n < SIGN_IN_THROTTLE_POLICY.addressMaxFailures; n += 1) {
        expect(await signIn(db, keysFor(`child${n}`), false), `failure ${n}`).toMatchObject({ allowed: true });
        clock.advance(10_000);
      }
      const addressKey = keysFor('any').addressKey;
      const windowStart = isoAfter(clock.now().toISOString(), -WINDOW_MS);
      expect(await readAddressWindow(db, addressKey, windowStart)).toEqual({ failures: 30, oldestFailedAt: START });
      expect(await readAddressWindow(db, keysFor('any', '203.0.113.9').addressKey, windowStart)).toEqual({
        failures: 0,
        oldestFailedAt: null,
      });
      // Now START + 300 s; the first failure leaves the window at START + 600 s.
      expect(await checkThrottle(db, keysFor('someone.new'), clock.now())).toEqual(refused(300, 'address'));
      expect(await checkThrottle(db, keysFor('someone.new', '203.0.113.9'), clock.now())).toEqual({ allowed: true });
      clock.set(isoAfter(START, WINDOW_MS - 1));
      expect(await checkThrottle(db, keysFor('someone.new'), clock.now())).toEqual(refused(1, 'address'));
      // A failure exactly at the window's start has left it.
      clock.set(isoAfter(START, WINDOW_MS));
      expect(await checkThrottle(db, keysFor('someone.new'), clock.now())).toEqual({ allowed: true });
      expect(await readAddressWindow(db, addressKey, START)).toEqual({ failures: 29, oldestFailedAt: isoAfter(START, 10_000) });
    });

    it('prunes address failures on every check, and idle usernames on a sweep', async () => {
      const db = database();
      await signIn(db, keysFor('mia.lund'), false);
      await signIn(db, keysFor('old.name'), false);
      clock.advance(WINDOW_MS);
      // The check itself prunes both failures at the window's start; the new failure stays.
      await signIn(db, keysFor('mia.lund'), false);
      expect(await readAddressWindow(db, keysFor('x').addressKey, '0001-01-01T00:00:00.000Z')).toEqual({
        failures: 1,
        oldestFailedAt: isoAfter(START, WINDOW_MS),
      });

      // old.name's last failure is START: kept at exactly the idle limit, pruned one ms later.
      const idleMs = 30 * 24 * 3_600_000;
      expect(await pruneSignInThrottle(db, new Date(Date.parse(START) + idleMs), { usernameIdleMs: idleMs })).toEqual({
        addressFailures: 1,
        usernames: 0,
      });
      expect(await pruneSignInThrottle(db, new Date(Date.parse(START) + idleMs + 1))).toEqual({ addressFailures: 0, usernames: 1 });
      expect(await readUsernameFailures(db, keysFor('old.name').usernameKey)).toBeUndefined();
      expect(await readUsernameFailures(db, keysFor('mia.lund').usernameKey)).toEqual({
        consecutiveFailures: 2,
        lastFailureAt: isoAfter(START, WINDOW_MS),
      });
    });

    it('prunes in batches for the sweep: at most the limit per statement, oldest first, only what expired', async () => {
      const db = database();
      const sweepStart = isoAfter(START, 1_000_000);
      clock.set(sweepStart);
      for (let index = 0; index < 5; index += 1) {
        clock.set(isoAfter(sweepStart, index));
        await signIn(db, keysFor(`batch.${index}`, '203.0.113.50'), false);
      }
      const cutoff = isoAfter(sweepStart, 3);
      // Usernames idle since before the cutoff (failures at +0, +1, +2): two, then one, then none.
      expect(await pruneUsernameFailuresBatch(db, cutoff, 2)).toBe(2);
      expect(await readUsernameFailures(db, keysFor('batch.0').usernameKey)).toBeUndefined();
      expect(await readUsernameFailures(db, keysFor('batch.2').usernameKey)).toBeDefined();
      expect(await pruneUsernameFailuresBatch(db, cutoff, 2)).toBe(1);
      expect(await pruneUsernameFailuresBatch(db, cutoff, 2)).toBe(0);
      expect(await readUsernameFailures(db, keysFor('batch.3').usernameKey)).toBeDefined();
      // Address failures at or before the cutoff: +0 … +3.
      expect(await pruneAddressFailuresBatch(db, cutoff, 3)).toBe(3);
      expect(await pruneAddressFailuresBatch(db, cutoff, 3)).toBe(1);
      expect(await readAddressWindow(db, keysFor('x', '203.0.113.50').addressKey, '0001-01-01T00:00:00.000Z')).toEqual({
        failures: 1,
        oldestFailedAt: isoAfter(sweepStart, 4),
      });
    });
  });
}
