import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../db/database';
import { migrateDatabase } from '../db/migrate';
import { createSqliteDatabase } from '../db/sqlite-database';
import { manualClock, type ManualClock } from '../ports/clock';
import {
  checkThrottle,
  lockThrottle,
  pruneSignInThrottle,
  recordFailure,
  recordSuccess,
  resetUsernameFailures,
  type FailureRecord,
  type ThrottleDecision,
} from './sign-in-throttle';
import { incrementUsernameFailures } from './sign-in-throttle-store';
import { throttleKeys, usernameThrottleKey, type ThrottleKeys } from './throttle-keys';

const PEPPER = 'test-pepper-0123456789abcdefghijklmnop';
const ADDRESS = '203.0.113.7';

let folder: string;
let path: string;
let db: Database;
let clock: ManualClock;
const opened: Database[] = [];

async function openDatabase(): Promise<Database> {
  const database = createSqliteDatabase(path);
  opened.push(database);
  await migrateDatabase(database);
  return database;
}

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'sign-in-throttle-'));
  path = join(folder, 'test.sqlite');
  db = await openDatabase();
  clock = manualClock('2025-03-01T08:00:00.000Z');
});

afterEach(async () => {
  for (const database of opened.splice(0)) await database.close();
  rmSync(folder, { recursive: true, force: true });
});

const keysFor = (username: string, address = ADDRESS): ThrottleKeys => throttleKeys(PEPPER, username, address);

/** One sign-in as the endpoint runs it: check, then (after verifying) settle in a transaction. */
async function signIn(
  keys: ThrottleKeys,
  secretIsRight: boolean,
  database: Database = db,
): Promise<ThrottleDecision | FailureRecord> {
  const gate = await checkThrottle(database, keys, clock.now());
  if (!gate.allowed) return gate;
  return database.transaction(async (tx) => {
    const lock = await lockThrottle(tx, keys);
    return secretIsRight ? recordSuccess(lock, clock.now()) : recordFailure(lock, clock.now());
  });
}

const refused = (retryAfterSeconds: number, scope: 'username' | 'address' = 'username') => ({
  allowed: false,
  retryAfterSeconds,
  scope,
});

describe('per username', () => {
  it('lets 3 failures through, then waits 2^(n-3) s after each, capped at 15 minutes, locking from the 10th', async () => {
    const keys = keysFor('mia.lund');
    // Expected wait after the n-th consecutive failure, in seconds (n = index + 1).
    const waits = [0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900];
    for (const [index, wait] of waits.entries()) {
      const n = index + 1;
      expect(await signIn(keys, false)).toEqual({ allowed: true, consecutiveFailures: n, lockNow: n >= 10 });
      if (wait === 0) {
        expect(await checkThrottle(db, keys, clock.now())).toEqual({ allowed: true });
        continue;
      }
      expect(await checkThrottle(db, keys, clock.now())).toEqual(refused(wait));
      clock.advance(wait * 1000 - 1);
      expect(await checkThrottle(db, keys, clock.now())).toEqual(refused(1));
      clock.advance(1);
      expect(await checkThrottle(db, keys, clock.now())).toEqual({ allowed: true });
    }
  });

  it('rounds Retry-After up to whole seconds', async () => {
    const keys = keysFor('mia.lund');
    for (let n = 1; n <= 3; n += 1) await signIn(keys, false);
    clock.advance(1000);
    await signIn(keys, false); // the 4th: wait 2 s
    clock.advance(500);
    expect(await checkThrottle(db, keys, clock.now())).toEqual(refused(2));
    clock.advance(501);
    expect(await checkThrottle(db, keys, clock.now())).toEqual(refused(1));
  });

  it('forgets the failures on a success', async () => {
    const keys = keysFor('mia.lund');
    for (let n = 1; n <= 3; n += 1) await signIn(keys, false);
    clock.advance(1000);
    expect(await signIn(keys, true)).toEqual({ allowed: true });
    expect(await signIn(keys, false)).toEqual({ allowed: true, consecutiveFailures: 1, lockNow: false });
    expect(await signIn(keys, false)).toEqual({ allowed: true, consecutiveFailures: 2, lockNow: false });
  });

  it('forgets the failures when the parent sets a new secret', async () => {
    const keys = keysFor('mia.lund');
    for (let n = 1; n <= 3; n += 1) await signIn(keys, false);
    await resetUsernameFailures(db, usernameThrottleKey(PEPPER, 'mia.lund'));
    expect(await checkThrottle(db, keys, clock.now())).toEqual({ allowed: true });
    expect(await signIn(keys, false)).toMatchObject({ consecutiveFailures: 1 });
  });

  it('counts each username on its own, existing or not', async () => {
    for (let n = 1; n <= 3; n += 1) await signIn(keysFor('mia.lund'), false);
    expect(await checkThrottle(db, keysFor('mia.lund'), clock.now())).toEqual(refused(1));
    expect(await checkThrottle(db, keysFor('no.such.child'), clock.now())).toEqual({ allowed: true });
    expect(await signIn(keysFor('no.such.child'), false)).toMatchObject({ consecutiveFailures: 1 });
  });
});

describe('per client address', () => {
  it('allows 30 failures in any 10 minutes, then refuses every attempt until the oldest leaves the window', async () => {
    const start = clock.now().getTime();
    for (let n = 0; n < 30; n += 1) {
      expect(await signIn(keysFor(`child${n}`), false), `failure ${n}`).toMatchObject({ allowed: true });
      clock.advance(10_000);
    }
    // Now start + 300 s; the first failure (at start) leaves the window at start + 600 s.
    expect(await checkThrottle(db, keysFor('someone.new'), clock.now())).toEqual(refused(300, 'address'));
    expect(await signIn(keysFor('someone.new'), true)).toEqual(refused(300, 'address'));
    // Another address is not affected.
    expect(await checkThrottle(db, keysFor('someone.new', '198.51.100.1'), clock.now())).toEqual({ allowed: true });

    clock.set(new Date(start + 600_000 - 1));
    expect(await checkThrottle(db, keysFor('someone.new'), clock.now())).toEqual(refused(1, 'address'));
    clock.set(new Date(start + 600_000));
    expect(await checkThrottle(db, keysFor('someone.new'), clock.now())).toEqual({ allowed: true });
    // Sliding: one more failure fills the window again until the second-oldest (start + 10 s) leaves.
    expect(await signIn(keysFor('someone.new'), false)).toMatchObject({ allowed: true });
    expect(await checkThrottle(db, keysFor('another.one'), clock.now())).toEqual(refused(10, 'address'));
  });

  it('is not filled by successes, and a success does not clear the failures', async () => {
    for (let n = 0; n < 29; n += 1) await signIn(keysFor(`child${n}`), false);
    for (let n = 0; n < 50; n += 1) expect(await signIn(keysFor(`happy${n}`), true)).toEqual({ allowed: true });
    expect(await signIn(keysFor('child0'), true)).toEqual({ allowed: true });
    expect(await signIn(keysFor('last.straw'), false)).toMatchObject({ allowed: true });
    expect(await checkThrottle(db, keysFor('happy0'), clock.now())).toEqual(refused(600, 'address'));
  });

  it('names the scope that stays closed longer when both are closed', async () => {
    const keys = keysFor('mia.lund');
    for (let n = 0; n < 27; n += 1) await signIn(keysFor(`child${n}`), false);
    for (let n = 1; n <= 3; n += 1) await signIn(keys, false);
    expect(await checkThrottle(db, keys, clock.now())).toEqual(refused(600, 'address'));
  });
});

describe('attempts that were let through together', () => {
  it('are checked again when they settle, refused alike whether the secret was right or wrong', async () => {
    const keys = keysFor('mia.lund');
    await signIn(keys, false);
    await signIn(keys, false);
    // Three attempts pass the door at once, then their verifications finish one by one.
    const gates = await Promise.all([1, 2, 3].map(() => checkThrottle(db, keys, clock.now())));
    expect(gates).toEqual([{ allowed: true }, { allowed: true }, { allowed: true }]);
    clock.advance(50);
    expect(await db.transaction(async (tx) => recordFailure(await lockThrottle(tx, keys), clock.now()))).toMatchObject({ consecutiveFailures: 3 });
    clock.advance(50);
    expect(await db.transaction(async (tx) => recordFailure(await lockThrottle(tx, keys), clock.now()))).toEqual(refused(1));
    expect(await db.transaction(async (tx) => recordSuccess(await lockThrottle(tx, keys), clock.now()))).toEqual(refused(1));
    // Neither late attempt was recorded: the count is still 3, not reset, not 4.
    clock.advance(1000);
    expect(await signIn(keys, false)).toMatchObject({ consecutiveFailures: 4 });
  });

  it('cannot push an address past its limit', async () => {
    for (let n = 0; n < 29; n += 1) await signIn(keysFor(`child${n}`), false);
    const late = [keysFor('late.one'), keysFor('late.two')];
    for (const keys of late) expect(await checkThrottle(db, keys, clock.now())).toEqual({ allowed: true });
    expect(await db.transaction(async (tx) => recordFailure(await lockThrottle(tx, late[0] as ThrottleKeys), clock.now()))).toMatchObject({
      allowed: true,
    });
    expect(await db.transaction(async (tx) => recordSuccess(await lockThrottle(tx, late[1] as ThrottleKeys), clock.now()))).toEqual(
      refused(600, 'address'),
    );
  });
});

describe('shared state', () => {
  it('is seen by every instance on the database', async () => {
    const other = await openDatabase();
    const keys = keysFor('mia.lund');
    expect(await signIn(keys, false, db)).toMatchObject({ consecutiveFailures: 1 });
    expect(await signIn(keys, false, other)).toMatchObject({ consecutiveFailures: 2 });
    expect(await signIn(keys, false, db)).toMatchObject({ consecutiveFailures: 3 });
    expect(await checkThrottle(other, keys, clock.now())).toEqual(refused(1));
    clock.advance(1000);
    expect(await signIn(keys, true, other)).toEqual({ allowed: true });
    expect(await signIn(keys, false, db)).toMatchObject({ consecutiveFailures: 1 });
  });

  it('loses no count when two instances fail at once', async () => {
    const other = await openDatabase();
    const key = usernameThrottleKey(PEPPER, 'mia.lund');
    const at = clock.now().toISOString();
    const counts = await Promise.all(
      Array.from({ length: 20 }, (_, index) => incrementUsernameFailures(index % 2 === 0 ? db : other, key, at)),
    );
    // Outside a transaction each call reads after others may have incremented too; the total is what must hold.
    for (const count of counts) expect(count).toBeGreaterThanOrEqual(1);
    expect(await db.query('SELECT consecutiveFailures FROM SignInUsernameFailures')).toEqual([{ consecutiveFailures: 20 }]);
    // Failures on many usernames from one address, half through each instance. One after the
    // other: two SQLite connections in one process cannot hold transactions at once (the second
    // would block the thread the first needs to finish).
    const records = [];
    for (let index = 0; index < 20; index += 1) {
      const on = index % 2 === 0 ? db : other;
      records.push(await on.transaction(async (tx) => recordFailure(await lockThrottle(tx, keysFor(`child${index}`)), clock.now())));
    }
    expect(records.every((record) => record.allowed)).toBe(true);
    expect(await db.query('SELECT COUNT(*) AS failures FROM SignInAddressFailures')).toEqual([{ failures: 20 }]);
  });

  it('stores no username or address, only their keys', async () => {
    await signIn(keysFor('mia.lund'), false);
    const rows = [
      ...(await db.query('SELECT * FROM SignInUsernameFailures')),
      ...(await db.query('SELECT * FROM SignInAddressFailures')),
    ];
    expect(rows).toHaveLength(2);
    expect(JSON.stringify(rows)).not.toMatch(/mia|lund|203\.0/);
  });
});

describe('pruning', () => {
  it('drops address failures that left the window on the next check, and idle usernames on a sweep', async () => {
    await signIn(keysFor('mia.lund'), false);
    await signIn(keysFor('old.name'), false);
    clock.advance(600_000);
    await signIn(keysFor('mia.lund'), false);
    expect(await db.query('SELECT COUNT(*) AS n FROM SignInAddressFailures')).toEqual([{ n: 1 }]);

    clock.advance(30 * 24 * 3600_000 - 600_000 + 1);
    expect(await pruneSignInThrottle(db, clock.now())).toEqual({ addressFailures: 1, usernames: 1 });
    expect(await checkThrottle(db, keysFor('mia.lund'), clock.now())).toEqual({ allowed: true });
    expect(await db.query('SELECT COUNT(*) AS n FROM SignInUsernameFailures')).toEqual([{ n: 1 }]);
  });
});
