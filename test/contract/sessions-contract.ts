import { describe, expect, it } from 'vitest';
import type { Database } from '../../shared/db/database';
import { UniqueViolationError } from '../../shared/db/database-errors';
import type { Session } from '../../shared/sessions/session';
import {
  endSession,
  endUserSessions,
  findExpiredOpenSessions,
  findSessionById,
  insertSession,
  touchSession,
} from '../../shared/sessions/session-store';
import { insertUser } from '../../shared/users/user-store';
import { adultUser, childUser, isoAfter, migratedDatabasePerSuite, numberedId } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

const START = '2025-05-06T07:08:09.010Z';
const HOUR = 3_600_000;
const USER = numberedId(1);
const OTHER_USER = numberedId(2);

/** A session id as `generateSessionToken` makes them: 22 base64url characters. */
const sessionId = (stem: string): string => stem.padEnd(22, '_');

function session(id: string, overrides: Partial<Session> = {}): Session {
  return {
    id,
    userId: USER,
    secretHash: 'a3f1c0de'.repeat(8),
    accountType: 'adult',
    createdAt: START,
    lastUsedAt: START,
    idleExpiresAt: isoAfter(START, 14 * 24 * HOUR),
    absoluteExpiresAt: isoAfter(START, 30 * 24 * HOUR),
    endedAt: null,
    endReason: null,
    ...overrides,
  };
}

/**
 * Registers the contract suite of the sessions store (`shared/sessions/session-store.ts`) for one engine.
 * @param name the engine, shown in the suite's title.
 * @param factory the suite's database.
 */
export function describeSessionsContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Sessions store contract: ${name}`, () => {
    const database = migratedDatabasePerSuite(factory);

    const seedUsers = async (db: Database) => {
      await insertUser(db, adultUser(1));
      await insertUser(db, adultUser(2));
    };

    it('reads a session back by id exactly as inserted', async () => {
      const db = database();
      await seedUsers(db);
      const written = session(sessionId('Zx-9_aB'));
      await db.transaction((tx) => insertSession(tx, written));
      expect(await findSessionById(db, written.id)).toEqual(written);
      const child = childUser(3, USER);
      await insertUser(db, child);
      const childSession = session(sessionId('kid'), {
        userId: child.id,
        accountType: 'child',
        idleExpiresAt: isoAfter(START, 2 * 24 * HOUR),
        absoluteExpiresAt: isoAfter(START, 7 * 24 * HOUR),
      });
      await insertSession(db, childSession);
      expect(await findSessionById(db, childSession.id)).toEqual(childSession);
      expect(await findSessionById(db, sessionId('nope'))).toBeUndefined();
      await expect(insertSession(db, written)).rejects.toBeInstanceOf(UniqueViolationError);
    });

    it('tells session ids apart by case', async () => {
      const db = database();
      await seedUsers(db);
      const upper = session(sessionId('AbCdEf'), { secretHash: '1'.repeat(64) });
      const lower = session(sessionId('abcdef'), { secretHash: '2'.repeat(64), userId: OTHER_USER });
      await insertSession(db, upper);
      await insertSession(db, lower);
      expect(await findSessionById(db, upper.id)).toEqual(upper);
      expect(await findSessionById(db, lower.id)).toEqual(lower);
      expect(await findSessionById(db, sessionId('ABCDEF'))).toBeUndefined();
      expect(await endSession(db, sessionId('ABCDEF'), 'logout', START)).toBe(false);
      expect(await endSession(db, upper.id, 'logout', START)).toBe(true);
      expect((await findSessionById(db, lower.id))?.endedAt).toBeNull();
    });

    it('touches an open session, and leaves an ended one alone', async () => {
      const db = database();
      await seedUsers(db);
      const open = session(sessionId('open'));
      const ended = session(sessionId('ended'), { endedAt: START, endReason: 'logout' });
      await insertSession(db, open);
      await insertSession(db, ended);
      const usedAt = isoAfter(START, HOUR + 7);
      const idleUntil = isoAfter(usedAt, 14 * 24 * HOUR);
      await touchSession(db, open.id, usedAt, idleUntil);
      await touchSession(db, ended.id, usedAt, idleUntil);
      expect(await findSessionById(db, open.id)).toEqual({ ...open, lastUsedAt: usedAt, idleExpiresAt: idleUntil });
      expect(await findSessionById(db, ended.id)).toEqual(ended);
    });

    it('ends a session once: the second end changes nothing', async () => {
      const db = database();
      await seedUsers(db);
      const open = session(sessionId('once'));
      await insertSession(db, open);
      const endedAt = isoAfter(START, 5 * HOUR);
      expect(await db.transaction((tx) => endSession(tx, open.id, 'logout', endedAt))).toBe(true);
      expect(await db.transaction((tx) => endSession(tx, open.id, 'idle', isoAfter(endedAt, 1)))).toBe(false);
      expect(await findSessionById(db, open.id)).toEqual({ ...open, endedAt, endReason: 'logout' });
    });

    it('gives exactly one of two racing ends the session', async () => {
      const db = database();
      await seedUsers(db);
      const open = session(sessionId('race'));
      await insertSession(db, open);
      const results = await Promise.all([
        db.transaction((tx) => endSession(tx, open.id, 'logout', START)),
        db.transaction((tx) => endSession(tx, open.id, 'idle', START)),
      ]);
      expect([...results].sort()).toEqual([false, true]);
      expect((await findSessionById(db, open.id))?.endReason).toBe(results[0] ? 'logout' : 'idle');
    });

    it("ends every open session of a user and counts them, leaving ended ones and others' alone", async () => {
      const db = database();
      await seedUsers(db);
      const earlier = isoAfter(START, -HOUR);
      const mine = [session(sessionId('mine1')), session(sessionId('mine2')), session(sessionId('mine3'))];
      const alreadyEnded = session(sessionId('mine4'), { endedAt: earlier, endReason: 'idle' });
      const theirs = session(sessionId('theirs'), { userId: OTHER_USER });
      for (const row of [...mine, alreadyEnded, theirs]) await insertSession(db, row);

      const now = isoAfter(START, 2 * HOUR);
      expect(await db.transaction((tx) => endUserSessions(tx, USER, 'role_changed', now))).toBe(3);
      for (const row of mine) expect(await findSessionById(db, row.id)).toEqual({ ...row, endedAt: now, endReason: 'role_changed' });
      expect(await findSessionById(db, alreadyEnded.id)).toEqual(alreadyEnded);
      expect(await findSessionById(db, theirs.id)).toEqual(theirs);
      expect(await endUserSessions(db, USER, 'account_disabled', isoAfter(now, 1))).toBe(0);
    });

    it('finds open sessions past their idle or absolute expiry (inclusive), by id, up to the limit', async () => {
      const db = database();
      await seedUsers(db);
      const now = isoAfter(START, 48 * HOUR);
      const rows = [
        session(sessionId('d-idle'), { idleExpiresAt: isoAfter(now, -1) }),
        session(sessionId('b-absolute'), { absoluteExpiresAt: isoAfter(now, -HOUR), idleExpiresAt: isoAfter(now, HOUR) }),
        session(sessionId('c-exactly-now'), { idleExpiresAt: now }),
        session(sessionId('a-alive'), { idleExpiresAt: isoAfter(now, 1), absoluteExpiresAt: isoAfter(now, 1) }),
        session(sessionId('e-ended'), { idleExpiresAt: isoAfter(now, -HOUR), endedAt: isoAfter(now, -HOUR), endReason: 'logout' }),
        session(sessionId('A-upper'), { userId: OTHER_USER, absoluteExpiresAt: now }),
      ];
      for (const row of rows) await insertSession(db, row);
      const byId = (id: string) => rows.find((row) => row.id === sessionId(id));

      // Binary order: upper case sorts before lower case on both engines.
      expect(await findExpiredOpenSessions(db, now, 10)).toEqual(
        ['A-upper', 'b-absolute', 'c-exactly-now', 'd-idle'].map(byId),
      );
      expect((await findExpiredOpenSessions(db, now, 2)).map((row) => row.id)).toEqual([sessionId('A-upper'), sessionId('b-absolute')]);
      expect(await findExpiredOpenSessions(db, isoAfter(START, -1), 10)).toEqual([]);
    });
  });
}
