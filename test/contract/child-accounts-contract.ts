import { describe, expect, it } from 'vitest';
import { checkUsername, type ChildUsername } from '../../shared/children/child-username';
import type { ChildAccount } from '../../shared/children/child-account';
import {
  claimVerifiedSecret,
  findChildById,
  findChildByUsername,
  insertChildAccount,
  listChildrenOfParent,
  lockChild,
  markChildDeleted,
  setChildSecret,
  updateChildScopes,
  type NewChildAccount,
} from '../../shared/children/child-account-store';
import type { Database } from '../../shared/db/database';
import { UniqueViolationError } from '../../shared/db/database-errors';
import type { Section } from '../../shared/users/user';
import { findUserById, insertUser } from '../../shared/users/user-store';
import { adultUser, childUser, CREATED, isoAfter, migratedDatabasePerSuite, numberedId } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

/** PHC-shaped strings: the store keeps them opaque, so no Argon2 work is needed. */
const PIN_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo';
const PASSWORD_HASH = '$argon2id$v=19$m=19456,t=2,p=1$b3RoZXJzYWx0$YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo';
const REHASHED = '$argon2id$v=19$m=65536,t=3,p=1$bmV3c2FsdA$cmVoYXNoZWRyZWhhc2hlZHJlaGFzaGVk';
const LATER = '2025-04-03T12:00:00.500Z';
const PARENT = numberedId(1);
const OTHER_PARENT = numberedId(2);

/** A username in its stored form, as the endpoints hand it to the store. */
function stored(username: string): ChildUsername {
  const checked = checkUsername(username);
  if (!checked.ok) throw new Error(`test username ${username} is not valid`);
  return checked.username;
}

function newChild(n: number, username: string, overrides: { parentId?: string; createdAt?: string; scopes?: Section[] } = {}): NewChildAccount {
  return {
    user: childUser(n, overrides.parentId ?? PARENT, { createdAt: overrides.createdAt ?? CREATED, updatedAt: overrides.createdAt ?? CREATED }),
    username: stored(username),
    secretHash: PIN_HASH,
    secretKind: 'pin',
    scopes: overrides.scopes ?? ['announcements', 'events'],
  };
}

/** The account `findChild…` must return for `child`, before any change. */
function accountOf(child: NewChildAccount): ChildAccount {
  return {
    userId: child.user.id,
    parentId: child.user.parentId as string,
    username: child.username,
    secretHash: child.secretHash,
    secretKind: child.secretKind,
    scopes: [...child.scopes],
    status: child.user.status,
    lockedAt: null,
    deletedAt: null,
    createdAt: child.user.createdAt,
  };
}

async function insert(db: Database, child: NewChildAccount): Promise<void> {
  await db.transaction((tx) => insertChildAccount(tx, child));
}

/**
 * Registers the contract suite of the child accounts store (`shared/children/child-account-store.ts`)
 * for one engine.
 * @param name the engine, shown in the suite's title.
 * @param factory the suite's database.
 */
export function describeChildAccountsContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Child accounts store contract: ${name}`, () => {
    const database = migratedDatabasePerSuite(factory);

    const seedParents = async (db: Database) => {
      await insertUser(db, adultUser(1));
      await insertUser(db, adultUser(2));
    };

    it('reads a child back by username and by id exactly as inserted', async () => {
      const db = database();
      await seedParents(db);
      const child = newChild(10, 'mia.lund-2_b', { scopes: ['media', 'announcements', 'groups', 'events'] });
      await insert(db, child);
      expect(await findChildByUsername(db, stored('mia.lund-2_b'))).toEqual(accountOf(child));
      expect(await findChildById(db, child.user.id)).toEqual(accountOf(child));
      expect(await findUserById(db, child.user.id)).toEqual(child.user);
      expect(await findChildByUsername(db, stored('mia.lund'))).toBeUndefined();
      expect(await findChildById(db, numberedId(99))).toBeUndefined();
    });

    it('takes only the stored form of a username: a spelling SQL Server would match never reaches a statement', async () => {
      const db = database();
      await seedParents(db);
      await insert(db, newChild(10, 'kid'));
      for (const spelling of ['kid ', ' kid', 'KID', 'ｋｉｄ']) {
        await expect(findChildByUsername(db, spelling as ChildUsername), spelling).rejects.toThrow(/stored form/);
        await expect(insert(db, { ...newChild(11, 'other'), username: spelling as ChildUsername })).rejects.toThrow(/stored form/);
      }
      expect(await findUserById(db, numberedId(11))).toBeUndefined();
    });

    it('keeps a child without scopes as an empty list', async () => {
      const db = database();
      await seedParents(db);
      const child = newChild(10, 'no.scopes', { scopes: [] });
      await insert(db, child);
      expect((await findChildById(db, child.user.id))?.scopes).toEqual([]);
    });

    it('refuses a taken username with UniqueViolationError, leaving no half-made user', async () => {
      const db = database();
      await seedParents(db);
      await insert(db, newChild(10, 'taken'));
      const error = await insert(db, newChild(11, 'taken', { parentId: OTHER_PARENT })).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UniqueViolationError);
      expect(await findUserById(db, numberedId(11))).toBeUndefined();
      expect((await findChildByUsername(db, stored('taken')))?.userId).toBe(numberedId(10));
    });

    it('keeps the username of a deleted child taken', async () => {
      const db = database();
      await seedParents(db);
      await insert(db, newChild(10, 'gone.child'));
      await markChildDeleted(db, numberedId(10), LATER);
      await expect(insert(db, newChild(11, 'gone.child'))).rejects.toBeInstanceOf(UniqueViolationError);
      expect(await findChildByUsername(db, stored('gone.child'))).toMatchObject({ userId: numberedId(10), deletedAt: LATER });
    });

    it("pages a parent's children oldest first, ties broken by id, without deleted ones or other parents' children", async () => {
      const db = database();
      await seedParents(db);
      const tie = isoAfter(CREATED, 5000);
      const children = [
        newChild(14, 'kid.d', { createdAt: isoAfter(CREATED, 9000) }),
        newChild(12, 'kid.b', { createdAt: tie }),
        newChild(10, 'kid.a', { createdAt: CREATED }),
        newChild(13, 'kid.c', { createdAt: tie }),
      ];
      for (const child of children) await insert(db, child);
      await insert(db, newChild(11, 'kid.deleted', { createdAt: isoAfter(CREATED, 1) }));
      await markChildDeleted(db, numberedId(11), LATER);
      await insert(db, newChild(15, 'someone.else', { parentId: OTHER_PARENT, createdAt: isoAfter(CREATED, 2) }));
      const ordered = [10, 12, 13, 14].map((n) => accountOf(children.find((child) => child.user.id === numberedId(n)) as NewChildAccount));

      const first = await listChildrenOfParent(db, PARENT, { limit: 2 });
      expect(first).toEqual({ items: ordered.slice(0, 2), next: { createdAt: tie, id: numberedId(12) } });
      const second = await listChildrenOfParent(db, PARENT, { limit: 2, after: first.next ?? undefined });
      expect(second).toEqual({ items: ordered.slice(2), next: null });
      expect(await listChildrenOfParent(db, PARENT, { limit: 3 })).toEqual({
        items: ordered.slice(0, 3),
        next: { createdAt: tie, id: numberedId(13) },
      });
      expect((await listChildrenOfParent(db, OTHER_PARENT, { limit: 10 })).items.map((child) => child.username)).toEqual([
        'someone.else',
      ]);
      expect(await listChildrenOfParent(db, numberedId(99), { limit: 10 })).toEqual({ items: [], next: null });
    });

    it('replaces the scopes', async () => {
      const db = database();
      await seedParents(db);
      await insert(db, newChild(10, 'scoped'));
      await updateChildScopes(db, numberedId(10), ['groups', 'announcements']);
      expect((await findChildById(db, numberedId(10)))?.scopes).toEqual(['groups', 'announcements']);
      await updateChildScopes(db, numberedId(10), []);
      expect((await findChildById(db, numberedId(10)))?.scopes).toEqual([]);
    });

    it('locks once: a second lock keeps the first time', async () => {
      const db = database();
      await seedParents(db);
      await insert(db, newChild(10, 'lockable'));
      // Only the statement that locked it says so: the lock's notice and audit row hang on that.
      expect(await lockChild(db, numberedId(10), LATER)).toBe(true);
      expect(await lockChild(db, numberedId(10), isoAfter(LATER, 60_000))).toBe(false);
      expect((await findChildById(db, numberedId(10)))?.lockedAt).toBe(LATER);
    });

    it('marks deleted once: a second delete keeps the first time', async () => {
      const db = database();
      await seedParents(db);
      await insert(db, newChild(10, 'deletable'));
      await markChildDeleted(db, numberedId(10), LATER);
      await markChildDeleted(db, numberedId(10), isoAfter(LATER, 60_000));
      expect(await findChildById(db, numberedId(10))).toEqual({ ...accountOf(newChild(10, 'deletable')), deletedAt: LATER });
    });

    it('sets a new secret and lifts the lock', async () => {
      const db = database();
      await seedParents(db);
      const child = newChild(10, 'new.secret');
      await insert(db, child);
      await lockChild(db, child.user.id, LATER);
      await setChildSecret(db, child.user.id, { hash: PASSWORD_HASH, kind: 'password' }, isoAfter(LATER, 1));
      expect(await findChildById(db, child.user.id)).toEqual({
        ...accountOf(child),
        secretHash: PASSWORD_HASH,
        secretKind: 'password',
        lockedAt: null,
      });
    });

    it('claims the verified secret while it is current and unlocked, storing a rehash', async () => {
      const db = database();
      await seedParents(db);
      const child = newChild(10, 'claimer');
      await insert(db, child);
      expect(await db.transaction((tx) => claimVerifiedSecret(tx, child.user.id, PIN_HASH))).toBe(true);
      expect((await findChildById(db, child.user.id))?.secretHash).toBe(PIN_HASH);
      expect(await db.transaction((tx) => claimVerifiedSecret(tx, child.user.id, PIN_HASH, REHASHED))).toBe(true);
      expect((await findChildById(db, child.user.id))?.secretHash).toBe(REHASHED);
      // The hash as it was verified is compared exactly: another case is another hash.
      expect(await db.transaction((tx) => claimVerifiedSecret(tx, child.user.id, REHASHED.toUpperCase()))).toBe(false);
      expect(await claimVerifiedSecret(db, numberedId(99), PIN_HASH)).toBe(false);
    });

    it('refuses the claim after a change of secret, and while locked', async () => {
      const db = database();
      await seedParents(db);
      const child = newChild(10, 'refused');
      await insert(db, child);
      await setChildSecret(db, child.user.id, { hash: PASSWORD_HASH, kind: 'password' }, LATER);
      expect(await db.transaction((tx) => claimVerifiedSecret(tx, child.user.id, PIN_HASH, REHASHED))).toBe(false);
      expect((await findChildById(db, child.user.id))?.secretHash).toBe(PASSWORD_HASH);

      await lockChild(db, child.user.id, LATER);
      expect(await db.transaction((tx) => claimVerifiedSecret(tx, child.user.id, PASSWORD_HASH, REHASHED))).toBe(false);
      expect(await findChildById(db, child.user.id)).toMatchObject({ secretHash: PASSWORD_HASH, lockedAt: LATER });

      await setChildSecret(db, child.user.id, { hash: PIN_HASH, kind: 'pin' }, isoAfter(LATER, 1));
      expect(await db.transaction((tx) => claimVerifiedSecret(tx, child.user.id, PIN_HASH))).toBe(true);
    });
  });
}
