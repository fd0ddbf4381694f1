import { describe, expect, it } from 'vitest';
import { createSecretHasher } from '../../shared/ports/secret-hasher';
import { signInChild, type ChildSignIn, type ChildSignInDeps } from '../../shared/auth/sign-in-child';
import { createChild, type ChildManagementDeps } from '../../shared/family/create-child';
import type { Database } from '../../shared/db/database';
import { lazyDatabase } from '../../shared/db/lazy-database';
import { createLogger } from '../../shared/logging/logger';
import { manualClock, type ManualClock } from '../../shared/ports/clock';
import { cryptoRandom } from '../../shared/ports/random';
import { DEFAULT_SESSION_POLICY } from '../../shared/sessions/session-policy';
import { createInMemoryTelemetry } from '../../shared/telemetry/in-memory';
import { insertUser } from '../../shared/users/user-store';
import { LogSink } from '../helpers/log-sink';
import { adultUser, migratedDatabasePerSuite } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

/**
 * The child sign-in flow (`shared/auth/sign-in-child.ts`) on each engine, for what only the
 * engine's comparison and locking can break: spellings of a username never reach a comparison,
 * and concurrent settlements take turns, so that a burst of guesses evaluates no more than
 * patient tries would. With the clock standing still, exactly the three free failures may be
 * evaluated: every later attempt must find the throttle closed.
 */

const PEPPER = 'contract-sign-in-pepper-0123456789abcdef';
const START = '2025-07-01T08:00:00.000Z';
/** A few milliseconds per Argon2 call: the flow, not the hash, is under test. */
const CHEAP_ARGON2 = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

function depsFor(db: Database, clock: ManualClock = manualClock(START)): ChildSignInDeps & ChildManagementDeps {
  return {
    database: lazyDatabase(async () => db),
    clock,
    random: cryptoRandom,
    telemetry: createInMemoryTelemetry(),
    logger: createLogger({ service: 'api', level: 'info', destination: new LogSink() }),
    sessionPolicy: DEFAULT_SESSION_POLICY,
    hasher: createSecretHasher({ pepper: PEPPER, params: CHEAP_ARGON2 }),
    pepper: PEPPER,
    consentTermsVersion: 'contract-terms',
  };
}

const codeOf = (result: ChildSignIn): string => (result.ok ? 'ok' : result.problem.code);

/** The sign-ins of `childId` whose secret was evaluated and wrong. */
async function evaluatedGuesses(db: Database, childId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    "SELECT COUNT(*) AS n FROM AuditLog WHERE subjectUserId = @childId AND eventType = 'authn_login_fail' AND reason = 'bad_credentials'",
    { childId },
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Registers the contract suite of the child sign-in flow for one engine.
 * @param name the engine, shown in the suite's title.
 * @param factory the suite's database; its `reopen`, where given, is a second instance.
 */
export function describeChildSignInContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Child sign-in contract: ${name}`, () => {
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

    async function newChild(db: Database, deps: ChildManagementDeps, username: string, pin: string, n: number): Promise<string> {
      const parent = adultUser(n);
      await insertUser(db, parent);
      const created = await createChild(parent, { username, secret: { kind: 'pin', value: pin }, scopes: ['announcements'] }, deps);
      if (!created.ok) throw new Error(`child not created: ${created.problem.code}`);
      return created.child.id;
    }

    it('answers spellings of a name as an unknown username and counts them under the name', async () => {
      const db = database();
      const clock = manualClock(START);
      const deps = depsFor(db, clock);
      const pin = '5072841';
      const childId = await newChild(db, deps, 'kid', pin, 1);
      const attempt = (username: string) => signInChild({ username, secret: pin, clientAddress: '198.51.100.7' }, deps);
      for (const spelling of ['KID ', ' kid', 'ｋｉｄ']) expect(codeOf(await attempt(spelling)), JSON.stringify(spelling)).toBe('invalid_credentials');
      expect(codeOf(await attempt('kid'))).toBe('too_many_attempts');
      // None of them was taken for the account (SQL Server would have matched `KID ` to `kid`).
      expect(await evaluatedGuesses(db, childId)).toBe(0);
      clock.advance(1000);
      expect(codeOf(await attempt('KID'))).toBe('ok');
    });

    it('evaluates only the free failures of 40 wrong guesses fired at once', async () => {
      const db = database();
      const deps = depsFor(db);
      const childId = await newChild(db, deps, 'burst.kid', '8150642', 2);
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          signInChild({ username: 'burst.kid', secret: String(6_100_000 + index), clientAddress: `203.0.113.${index}` }, deps),
        ),
      );
      const codes = results.map(codeOf);
      expect(codes.filter((code) => code === 'invalid_credentials')).toHaveLength(3);
      expect(codes.filter((code) => code === 'too_many_attempts')).toHaveLength(37);
      expect(await evaluatedGuesses(db, childId)).toBe(3);
    });

    it('evaluates only the free failures of 40 wrong guesses split over two instances', async (context) => {
      if (!second) {
        context.skip();
        return;
      }
      const db = database();
      const clock = manualClock(START);
      const deps = [depsFor(db, clock), depsFor(second, clock)] as const;
      const childId = await newChild(db, deps[0], 'twin.kid', '9264017', 3);
      await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          signInChild({ username: 'twin.kid', secret: String(6_200_000 + index), clientAddress: `203.0.113.${index}` }, deps[index % 2] as ChildSignInDeps & ChildManagementDeps),
        ),
      );
      expect(await evaluatedGuesses(db, childId)).toBe(3);
    });

    it('settles right PINs racing wrong ones without a deadlock, and never signs in once the throttle closed', async () => {
      const db = database();
      const deps = depsFor(db);
      const pin = '3047192';
      const childId = await newChild(db, deps, 'race.kid', pin, 4);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          signInChild({ username: 'race.kid', secret: index % 4 === 0 ? pin : String(6_300_000 + index), clientAddress: `192.0.2.${index}` }, deps),
        ),
      );
      const codes = results.map(codeOf);
      expect(codes.every((code) => ['ok', 'invalid_credentials', 'too_many_attempts'].includes(code))).toBe(true);
      const successes = codes.filter((code) => code === 'ok').length;
      expect(successes).toBeLessThanOrEqual(3);
      // With the clock standing still, three failures close the throttle for good: each success
      // can have reopened it at most once, so no more than three failures were evaluated per
      // success, plus three after the last.
      const evaluated = await evaluatedGuesses(db, childId);
      expect(evaluated).toBeGreaterThanOrEqual(3);
      expect(evaluated).toBeLessThanOrEqual(3 * (successes + 1));
      // Every success, and only a success, made a session.
      const sessions = await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM Sessions');
      expect(Number(sessions[0]?.n)).toBe(successes);
    });
  });
}
