import { beforeEach, describe, expect, it } from 'vitest';
import {
  checkAdultThrottle,
  createAdultSignInThrottle,
  recordAdultFailure,
  type AdultFailureRecord,
  type AdultSignInLimits,
  type AdultThrottleDecision,
} from '../../shared/throttles/adult-sign-in-throttle';
import { insertAdultFailure, pruneAdultFailuresBatch, readAdultFailureWindows } from '../../shared/throttles/adult-sign-in-throttle-store';
import { adultAddressThrottleKey } from '../../shared/throttles/throttle-keys';
import type { IdTokenVerifier } from '../../shared/auth/id-token';
import { signInAdult, type AdultSignIn, type AdultSignInDeps } from '../../shared/auth/sign-in-adult';
import type { Database } from '../../shared/db/database';
import { lazyDatabase } from '../../shared/db/lazy-database';
import { createLogger } from '../../shared/logging/logger';
import { manualClock, type ManualClock } from '../../shared/ports/clock';
import { cryptoRandom, sequentialRandom, type Random } from '../../shared/ports/random';
import { DEFAULT_SESSION_POLICY } from '../../shared/sessions/session-policy';
import { createInMemoryTelemetry } from '../../shared/telemetry/in-memory';
import { LogSink } from '../helpers/log-sink';
import { isoAfter, migratedDatabasePerSuite } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

const PEPPER = 'contract-adult-pepper-0123456789abcdefghij';
const START = '2025-08-01T07:00:00.250Z';
const SECOND = 1000;
const MINUTE = 60 * SECOND;

const keyOf = (address: string): string => adultAddressThrottleKey(PEPPER, address);
const refused = (retryAfterSeconds: number, scope: 'address' | 'global') => ({ allowed: false, retryAfterSeconds, scope });

/** Every token is refused: the flow's failure path is under test, not the verifier. */
const refusingVerifier: IdTokenVerifier = {
  verify: () => Promise.resolve({ ok: false, failure: 'invalid_token', reason: 'bad_signature' }),
};

/**
 * Registers the contract suite of adult sign-in limits (`shared/throttles/adult-sign-in-throttle.ts`
 * over `adult-sign-in-throttle-store.ts`, and the failure path of `sign-in-adult.ts`) for one
 * engine: the windows read back exactly, the per-address and global limits, pruning, and
 * failures that race (on two instances where the engine allows it).
 * @param name the engine, shown in the suite's title.
 * @param factory the suite's database; its `reopen`, where given, is a second instance.
 */
export function describeAdultSignInThrottleContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Adult sign-in throttle contract: ${name}`, () => {
    let second: Database | undefined;
    const database = migratedDatabasePerSuite(async () => {
      const handle = await factory();
      second = handle.reopen?.();
      return {
        ...handle,
        async dispose() {
          await second?.close();
          await handle.dispose();
        },
      };
    });
    const clock = manualClock(START);
    let random: Random;

    beforeEach(() => {
      clock.set(START);
      random = sequentialRandom();
    });

    /** One failure as the endpoint handles it: the door check, then recording in a transaction. */
    async function fail(db: Database, address: string, limits: AdultSignInLimits): Promise<AdultThrottleDecision | AdultFailureRecord> {
      const gate = await checkAdultThrottle(db, keyOf(address), limits, clock.now());
      if (!gate.allowed) return gate;
      return db.transaction((tx) => recordAdultFailure(tx, keyOf(address), limits, clock.now(), random));
    }

    async function rowCount(db: Database): Promise<number> {
      const [row] = await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM AdultSignInFailures');
      return Number(row?.n ?? 0);
    }

    it('reads both windows back exactly, to the millisecond', async () => {
      const db = database();
      const limits = { addressMaxFailures: 10, addressWindowMs: 10 * MINUTE, globalMaxFailuresPerMinute: 10 };
      await fail(db, '198.51.100.1', limits);
      clock.advance(2 * MINUTE + 7);
      await fail(db, '198.51.100.2', limits);
      clock.advance(1);
      await fail(db, '198.51.100.1', limits);
      const windows = await readAdultFailureWindows(db, keyOf('198.51.100.1'), {
        addressWindowStart: new Date(clock.now().getTime() - limits.addressWindowMs).toISOString(),
        globalWindowStart: new Date(clock.now().getTime() - MINUTE).toISOString(),
      });
      expect(windows).toEqual({
        address: { failures: 2, oldestFailedAt: START },
        global: { failures: 2, oldestFailedAt: isoAfter(START, 2 * MINUTE + 7) },
      });
      const empty = await readAdultFailureWindows(db, keyOf('203.0.113.9'), {
        addressWindowStart: START,
        globalWindowStart: isoAfter(START, 10 * MINUTE),
      });
      expect(empty).toEqual({ address: { failures: 0, oldestFailedAt: null }, global: { failures: 0, oldestFailedAt: null } });
    });

    it('closes an address at its limit, at the door and on recording, until its oldest failure leaves the window', async () => {
      const db = database();
      const limits = { addressMaxFailures: 3, addressWindowMs: 10 * MINUTE, globalMaxFailuresPerMinute: 100 };
      expect(await fail(db, '198.51.100.7', limits)).toEqual({ allowed: true, closes: [] });
      clock.advance(SECOND);
      expect(await fail(db, '198.51.100.7', limits)).toEqual({ allowed: true, closes: [] });
      clock.advance(SECOND);
      // The third fills the limit: it is recorded, and says the address is closed for the rest of the window.
      expect(await fail(db, '198.51.100.7', limits)).toEqual({ allowed: true, closes: [refused(598, 'address')] });
      expect(await fail(db, '198.51.100.7', limits)).toEqual(refused(598, 'address'));
      // Past the door (another instance let it through before the limit filled): refused on recording, not recorded.
      expect(await db.transaction((tx) => recordAdultFailure(tx, keyOf('198.51.100.7'), limits, clock.now(), random))).toEqual(
        refused(598, 'address'),
      );
      expect(await rowCount(db)).toBe(3);
      // Another address is not affected, nor is one in the same IPv4 /24.
      expect(await fail(db, '198.51.100.8', limits)).toEqual({ allowed: true, closes: [] });

      clock.set(isoAfter(START, 10 * MINUTE - 1));
      expect(await fail(db, '198.51.100.7', limits)).toEqual(refused(1, 'address'));
      // The oldest has left: one more is recorded, and fills the limit again until the second-oldest leaves.
      clock.set(isoAfter(START, 10 * MINUTE));
      expect(await fail(db, '198.51.100.7', limits)).toEqual({ allowed: true, closes: [refused(1, 'address')] });
    });

    it('counts an IPv6 client by its /64, so a fresh address per attempt does not escape the limit', async () => {
      const db = database();
      const limits = { addressMaxFailures: 2, addressWindowMs: 10 * MINUTE, globalMaxFailuresPerMinute: 100 };
      await fail(db, '2001:db8:aa:bb::1', limits);
      await fail(db, '2001:db8:aa:bb:1234::9', limits);
      expect(await fail(db, '2001:db8:aa:bb:ffff::2', limits)).toEqual(refused(600, 'address'));
      expect(await fail(db, '2001:db8:aa:cc::1', limits)).toEqual({ allowed: true, closes: [] });
    });

    it('closes for everyone at the global limit per minute, whatever the addresses', async () => {
      const db = database();
      const limits = { addressMaxFailures: 30, addressWindowMs: 10 * MINUTE, globalMaxFailuresPerMinute: 3 };
      expect(await fail(db, '192.0.2.1', limits)).toEqual({ allowed: true, closes: [] });
      clock.advance(10 * SECOND);
      expect(await fail(db, '192.0.2.2', limits)).toEqual({ allowed: true, closes: [] });
      expect(await fail(db, '192.0.2.3', limits)).toEqual({ allowed: true, closes: [refused(50, 'global')] });
      expect(await fail(db, '192.0.2.4', limits)).toEqual(refused(50, 'global'));
      clock.set(isoAfter(START, MINUTE));
      expect(await fail(db, '192.0.2.5', limits)).toEqual({ allowed: true, closes: [refused(10, 'global')] });
    });

    it('names the limit that stays closed longer when both are', async () => {
      const db = database();
      const limits = { addressMaxFailures: 2, addressWindowMs: 10 * MINUTE, globalMaxFailuresPerMinute: 2 };
      await fail(db, '192.0.2.10', limits);
      expect(await fail(db, '192.0.2.10', limits)).toEqual({ allowed: true, closes: [refused(600, 'address'), refused(60, 'global')] });
      expect(await fail(db, '192.0.2.11', limits)).toEqual(refused(60, 'global'));
      expect(await fail(db, '192.0.2.10', limits)).toEqual(refused(600, 'address'));
    });

    it('prunes failures that have left both windows when it records one', async () => {
      const db = database();
      const limits = { addressMaxFailures: 30, addressWindowMs: 5 * MINUTE, globalMaxFailuresPerMinute: 100 };
      await fail(db, '192.0.2.20', limits);
      await fail(db, '192.0.2.21', limits);
      clock.advance(5 * MINUTE);
      // Exactly at the window's edge the two have left it: recording the next deletes them.
      expect(await fail(db, '192.0.2.20', limits)).toEqual({ allowed: true, closes: [] });
      expect(await rowCount(db)).toBe(1);
    });

    it('prunes in batches for the sweep: at most the limit per statement, only failures at or before the cutoff', async () => {
      const db = database();
      await db.execute('DELETE FROM AdultSignInFailures');
      for (let index = 0; index < 5; index += 1) {
        await insertAdultFailure(db, { id: `sweep-${index}`, addressKey: keyOf('192.0.2.60'), failedAt: isoAfter(START, index) });
      }
      const cutoff = isoAfter(START, 3);
      expect(await pruneAdultFailuresBatch(db, cutoff, 3)).toBe(3);
      expect(await pruneAdultFailuresBatch(db, cutoff, 3)).toBe(1);
      expect(await pruneAdultFailuresBatch(db, cutoff, 3)).toBe(0);
      expect(await db.query<{ id: string }>('SELECT id FROM AdultSignInFailures')).toEqual([{ id: 'sweep-4' }]);
    });

    describe('the sign-in flow', () => {
      function depsFor(db: Database, limits: AdultSignInLimits, at: ManualClock = clock): AdultSignInDeps {
        const logger = createLogger({ service: 'api', level: 'info', destination: new LogSink() });
        return {
          database: lazyDatabase(async () => db),
          clock: at,
          random: cryptoRandom,
          telemetry: createInMemoryTelemetry(),
          logger,
          sessionPolicy: DEFAULT_SESSION_POLICY,
          verifier: refusingVerifier,
          newUserStatus: 'active',
          bootstrapAdmins: [],
          throttle: createAdultSignInThrottle({ pepper: PEPPER, limits, logger, trustProxyHops: 1 }),
        };
      }

      const codeOf = (result: AdultSignIn): string => (result.ok ? 'ok' : result.problem.code);

      async function auditCounts(db: Database, since: string): Promise<{ invalid: number; throttled: number }> {
        const rows = await db.query<{ reason: string; n: number }>(
          `SELECT reason, COUNT(*) AS n FROM AuditLog
           WHERE eventType = 'authn_login_fail' AND occurredAt >= @since AND reason IN ('invalid_token', 'throttled')
           GROUP BY reason`,
          { since },
        );
        const count = (reason: string) => Number(rows.find((row) => row.reason === reason)?.n ?? 0);
        return { invalid: count('invalid_token'), throttled: count('throttled') };
      }

      it('audits exactly the limit of 40 invalid tokens fired at once from one address, plus one row for the closing', async () => {
        const db = database();
        const at = manualClock('2025-08-02T07:00:00.000Z');
        const deps = depsFor(db, { addressMaxFailures: 5, addressWindowMs: 10 * MINUTE, globalMaxFailuresPerMinute: 100 }, at);
        const results = await Promise.all(Array.from({ length: 40 }, () => signInAdult('x.y.z', deps, { clientAddress: '203.0.113.40' })));
        const codes = results.map(codeOf);
        expect(codes.filter((code) => code === 'invalid_token')).toHaveLength(5);
        expect(codes.filter((code) => code === 'too_many_attempts')).toHaveLength(35);
        expect(await auditCounts(db, '2025-08-02T07:00:00.000Z')).toEqual({ invalid: 5, throttled: 1 });
      });

      it('holds the global limit for failures split over two instances', async (context) => {
        if (!second) {
          context.skip();
          return;
        }
        const db = database();
        const at = manualClock('2025-08-03T07:00:00.000Z');
        const limits = { addressMaxFailures: 30, addressWindowMs: 10 * MINUTE, globalMaxFailuresPerMinute: 4 };
        const deps = [depsFor(db, limits, at), depsFor(second, limits, at)] as const;
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, index) => signInAdult('x.y.z', deps[index % 2] as AdultSignInDeps, { clientAddress: `198.51.100.${index}` })),
        );
        expect(results.map(codeOf).filter((code) => code === 'invalid_token')).toHaveLength(4);
        expect(await auditCounts(db, '2025-08-03T07:00:00.000Z')).toEqual({ invalid: 4, throttled: 1 });
      });
    });
  });
}
