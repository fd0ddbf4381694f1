import { describe, expect, it } from 'vitest';
import { checkUsername } from '../../shared/children/child-username';
import { insertChildAccount } from '../../shared/children/child-account-store';
import type { Database } from '../../shared/db/database';
import { UniqueViolationError } from '../../shared/db/database-errors';
import type { Session } from '../../shared/sessions/session';
import type { LiveSession } from '../../shared/sessions/session';
import {
  endLiveUserSessions,
  endSession,
  endUserSessions,
  findExpiredOpenSessions,
  findLiveUserSessions,
  findSessionById,
  insertSession,
  touchSession,
} from '../../shared/sessions/session-store';
import { findSessionWithUser } from '../../shared/sessions/session-with-user-store';
import { insertUser, updateUserStatus } from '../../shared/users/user-store';
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
    clientLabel: 'iOS app',
    ...overrides,
  };
}

/**
 * Registers the contract suite of the sessions stores (`shared/sessions/session-store.ts` and the
 * session-with-user read of `shared/sessions/session-with-user-store.ts`) for one engine.
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

    it('reads a session with its user in one statement: an adult has no scopes', async () => {
      const db = database();
      const adult = adultUser(1, { email: 'olga@example.org', phone: '+15550100001', role: 'author' });
      await insertUser(db, adult);
      await insertUser(db, adultUser(2));
      const written = session(sessionId('with-user'));
      const theirs = session(sessionId('theirs'), { userId: OTHER_USER });
      await insertSession(db, written);
      await insertSession(db, theirs);
      expect(await findSessionWithUser(db, written.id)).toEqual({ session: written, user: adult, scopes: undefined });
      expect((await findSessionWithUser(db, theirs.id))?.user).toEqual(adultUser(2));
      expect(await findSessionWithUser(db, sessionId('nope'))).toBeUndefined();
      expect(await findSessionWithUser(db, sessionId('WITH-USER'))).toBeUndefined();
    });

    it("reads a child's session with the child's current scopes, never its username or secret hash", async () => {
      const db = database();
      await seedUsers(db);
      const child = childUser(3, USER);
      const username = checkUsername('mika-contract');
      if (!username.ok) throw new Error('test username is not valid');
      const pinHash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo';
      await db.transaction((tx) =>
        insertChildAccount(tx, { user: child, username: username.username, secretHash: pinHash, secretKind: 'pin', scopes: ['events', 'announcements'] }),
      );
      const childSession = session(sessionId('kid-with-user'), { userId: child.id, accountType: 'child' });
      await insertSession(db, childSession);
      const found = await findSessionWithUser(db, childSession.id);
      expect(found).toEqual({ session: childSession, user: child, scopes: ['events', 'announcements'] });
      expect(JSON.stringify(found)).not.toContain(pinHash);
      expect(JSON.stringify(found)).not.toContain('mika-contract');

      // What changed since is what the next read sees: status and an ended session alike.
      await updateUserStatus(db, child.id, 'disabled', isoAfter(START, HOUR));
      expect(await endSession(db, childSession.id, 'account_disabled', isoAfter(START, HOUR))).toBe(true);
      expect(await findSessionWithUser(db, childSession.id)).toEqual({
        session: { ...childSession, endedAt: isoAfter(START, HOUR), endReason: 'account_disabled' },
        user: { ...child, status: 'disabled', updatedAt: isoAfter(START, HOUR) },
        scopes: ['events', 'announcements'],
      });

      // A child row without credentials (none is ever made so, but the join must not invent scopes).
      const bare = childUser(4, USER);
      await insertUser(db, bare);
      await insertSession(db, session(sessionId('bare-kid'), { userId: bare.id, accountType: 'child' }));
      expect((await findSessionWithUser(db, sessionId('bare-kid')))?.scopes).toBeUndefined();
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

    it('keeps the client label of the sign-in, and reads a session from before labels as unknown', async () => {
      const db = database();
      await seedUsers(db);
      const labelled = session(sessionId('labelled'), { clientLabel: 'Android browser' });
      await insertSession(db, labelled);
      expect((await findSessionById(db, labelled.id))?.clientLabel).toBe('Android browser');
      expect((await findSessionWithUser(db, labelled.id))?.session.clientLabel).toBe('Android browser');
      // A row written by the code before migration 0009 names no label: the column's default fills it.
      await db.execute(
        `INSERT INTO Sessions (id, userId, secretHash, accountType, createdAt, lastUsedAt, idleExpiresAt, absoluteExpiresAt)
         VALUES (@id, @userId, @secretHash, 'adult', @createdAt, @createdAt, @idleExpiresAt, @absoluteExpiresAt)`,
        {
          id: sessionId('before-labels'),
          userId: USER,
          secretHash: 'b'.repeat(64),
          createdAt: START,
          idleExpiresAt: isoAfter(START, HOUR),
          absoluteExpiresAt: isoAfter(START, 2 * HOUR),
        },
      );
      expect((await findSessionById(db, sessionId('before-labels')))?.clientLabel).toBe('unknown');
    });

    it("lists a user's live sessions newest first (ties by id), never the secret hash, up to the limit", async () => {
      const db = database();
      await seedUsers(db);
      const now = isoAfter(START, 10 * HOUR);
      const newest = session(sessionId('newest'), { createdAt: isoAfter(START, 9 * HOUR), lastUsedAt: isoAfter(START, 9 * HOUR), clientLabel: 'Windows browser' });
      const tieB = session(sessionId('tie-b'), { createdAt: isoAfter(START, HOUR) });
      const tieA = session(sessionId('tie-a'), { createdAt: isoAfter(START, HOUR), lastUsedAt: isoAfter(START, 5 * HOUR) });
      const oldest = session(sessionId('oldest'));
      const rows = [
        oldest,
        tieB,
        newest,
        tieA,
        session(sessionId('ended'), { endedAt: isoAfter(START, 2 * HOUR), endReason: 'logout' }),
        session(sessionId('idle-exactly-now'), { idleExpiresAt: now }),
        session(sessionId('absolute-past'), { absoluteExpiresAt: isoAfter(now, -1) }),
        session(sessionId('theirs'), { userId: OTHER_USER }),
      ];
      for (const row of rows) await insertSession(db, row);
      const live = (row: Session): LiveSession => ({
        id: row.id,
        userId: row.userId,
        accountType: row.accountType,
        createdAt: row.createdAt,
        lastUsedAt: row.lastUsedAt,
        idleExpiresAt: row.idleExpiresAt,
        absoluteExpiresAt: row.absoluteExpiresAt,
        clientLabel: row.clientLabel,
      });

      const listed = await findLiveUserSessions(db, USER, now, 10);
      expect(listed).toEqual([newest, tieA, tieB, oldest].map(live));
      expect(JSON.stringify(listed)).not.toContain(oldest.secretHash);
      expect((await findLiveUserSessions(db, USER, now, 2)).map((row) => row.id)).toEqual([newest.id, tieA.id]);
      expect((await findLiveUserSessions(db, OTHER_USER, now, 10)).map((row) => row.id)).toEqual([sessionId('theirs')]);
      expect(await findLiveUserSessions(db, numberedId(9), now, 10)).toEqual([]);
    });

    it("ends a user's live sessions but the kept one (or all), leaving expired, ended and others' sessions alone", async () => {
      const db = database();
      await seedUsers(db);
      const now = isoAfter(START, 10 * HOUR);
      const earlier = isoAfter(START, HOUR);
      const current = session(sessionId('current'));
      const other1 = session(sessionId('other1'));
      const other2 = session(sessionId('OTHER1'));
      const expired = session(sessionId('expired'), { idleExpiresAt: now });
      const ended = session(sessionId('ended'), { endedAt: earlier, endReason: 'logout' });
      const theirs = session(sessionId('theirs'), { userId: OTHER_USER });
      for (const row of [current, other1, other2, expired, ended, theirs]) await insertSession(db, row);

      expect(await db.transaction((tx) => endLiveUserSessions(tx, USER, 'user_revoked_all', now, current.id))).toBe(2);
      for (const row of [other1, other2]) expect(await findSessionById(db, row.id)).toEqual({ ...row, endedAt: now, endReason: 'user_revoked_all' });
      for (const row of [current, expired, ended, theirs]) expect(await findSessionById(db, row.id)).toEqual(row);
      expect(await endLiveUserSessions(db, USER, 'user_revoked_all', now, current.id)).toBe(0);

      const later = isoAfter(now, 1);
      expect(await db.transaction((tx) => endLiveUserSessions(tx, USER, 'parent_revoked', later, null))).toBe(1);
      expect(await findSessionById(db, current.id)).toEqual({ ...current, endedAt: later, endReason: 'parent_revoked' });
      // The expired one is the sweep's to record, as `session_expired`.
      expect(await findSessionById(db, expired.id)).toEqual(expired);
      expect(await findSessionById(db, theirs.id)).toEqual(theirs);
    });
  });
}
