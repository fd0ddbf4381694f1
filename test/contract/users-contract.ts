import { describe, expect, it } from 'vitest';
import { UniqueViolationError } from '../../shared/db/database-errors';
import { START_OF_LIST } from '../../shared/db/keyset-page';
import type { User } from '../../shared/users/user';
import {
  findAdultByIdentity,
  findUserById,
  insertUser,
  listAdultsByStatus,
  transitionUserStatus,
  refreshAdultContact,
  updateAdultContact,
  updateUserRole,
  updateUserStatus,
} from '../../shared/users/user-store';
import { adultUser, childUser, CREATED, isoAfter, ISSUER, migratedDatabasePerSuite, numberedId } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

const LATER = '2025-04-02T10:11:12.013Z';

/**
 * Registers the contract suite of the users store (`shared/users/user-store.ts`) for one engine.
 * @param name the engine, shown in the suite's title.
 * @param factory the suite's database.
 */
export function describeUsersContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Users store contract: ${name}`, () => {
    const database = migratedDatabasePerSuite(factory);

    it('reads an adult back by identity and by id exactly as inserted', async () => {
      const db = database();
      const adult = adultUser(1, {
        subject: 'AAD-sub_0123456789-abcdef',
        role: 'author',
        status: 'pending_approval',
        email: "Zoë.O'Brien@example.test",
        phone: '+4915112345678',
        updatedAt: LATER,
      });
      await insertUser(db, adult);
      expect(await findAdultByIdentity(db, ISSUER, adult.subject as string)).toEqual(adult);
      expect(await findUserById(db, adult.id)).toEqual(adult);
      expect(await findUserById(db, numberedId(99))).toBeUndefined();
      expect(await findAdultByIdentity(db, ISSUER, 'nobody')).toBeUndefined();
      expect(await findAdultByIdentity(db, 'https://other.issuer.test/', adult.subject as string)).toBeUndefined();
    });

    it('reads a child user back by id, with its parent and no identity', async () => {
      const db = database();
      const parent = adultUser(1);
      const child = childUser(2, parent.id);
      await insertUser(db, parent);
      await insertUser(db, child);
      expect(await findUserById(db, child.id)).toEqual(child);
    });

    it('tells identities apart by case: subject AbC and abc are two users', async () => {
      const db = database();
      const upper = adultUser(1, { subject: 'AbC' });
      const lower = adultUser(2, { subject: 'abc' });
      await insertUser(db, upper);
      await insertUser(db, lower);
      expect(await findAdultByIdentity(db, ISSUER, 'AbC')).toEqual(upper);
      expect(await findAdultByIdentity(db, ISSUER, 'abc')).toEqual(lower);
      expect(await findAdultByIdentity(db, ISSUER, 'ABC')).toBeUndefined();
      expect(await findAdultByIdentity(db, ISSUER.toUpperCase(), 'AbC')).toBeUndefined();
    });

    it('refuses a second user with the same identity or the same id', async () => {
      const db = database();
      await insertUser(db, adultUser(1, { subject: 'same' }));
      await expect(insertUser(db, adultUser(2, { subject: 'same' }))).rejects.toBeInstanceOf(UniqueViolationError);
      await expect(insertUser(db, adultUser(1, { subject: 'other' }))).rejects.toBeInstanceOf(UniqueViolationError);
      expect(await findUserById(db, numberedId(2))).toBeUndefined();
    });

    it('changes a role only while it is still the expected one', async () => {
      const db = database();
      const adult = adultUser(1);
      await insertUser(db, adult);
      expect(await updateUserRole(db, adult.id, 'member', 'author', LATER)).toBe(true);
      expect(await findUserById(db, adult.id)).toEqual({ ...adult, role: 'author', updatedAt: LATER });

      // A concurrent change already moved it: nothing happens.
      expect(await updateUserRole(db, adult.id, 'member', 'admin', isoAfter(LATER, 1))).toBe(false);
      expect(await findUserById(db, adult.id)).toEqual({ ...adult, role: 'author', updatedAt: LATER });
      expect(await updateUserRole(db, numberedId(99), 'member', 'admin', LATER)).toBe(false);
    });

    it('gives exactly one of two racing role changes the change', async () => {
      const db = database();
      const adult = adultUser(1);
      await insertUser(db, adult);
      const results = await Promise.all([
        db.transaction((tx) => updateUserRole(tx, adult.id, 'member', 'admin', LATER)),
        db.transaction((tx) => updateUserRole(tx, adult.id, 'member', 'author', LATER)),
      ]);
      expect([...results].sort()).toEqual([false, true]);
      const winner = results[0] ? 'admin' : 'author';
      expect((await findUserById(db, adult.id))?.role).toBe(winner);
    });

    it('never changes the role of a child', async () => {
      const db = database();
      const parent = adultUser(1);
      const child = childUser(2, parent.id);
      await insertUser(db, parent);
      await insertUser(db, child);
      expect(await updateUserRole(db, child.id, 'member', 'admin', LATER)).toBe(false);
      expect(await findUserById(db, child.id)).toEqual(child);
    });

    it('moves a status only from the expected one; the unconditional update always writes', async () => {
      const db = database();
      const adult = adultUser(1, { status: 'pending_approval' });
      await insertUser(db, adult);
      expect(await transitionUserStatus(db, adult.id, 'pending_approval', 'active', LATER)).toBe(true);
      expect(await findUserById(db, adult.id)).toEqual({ ...adult, status: 'active', updatedAt: LATER });
      expect(await transitionUserStatus(db, adult.id, 'pending_approval', 'disabled', isoAfter(LATER, 1))).toBe(false);
      expect(await findUserById(db, adult.id)).toEqual({ ...adult, status: 'active', updatedAt: LATER });

      const disabledAt = isoAfter(LATER, 2);
      await updateUserStatus(db, adult.id, 'disabled', disabledAt);
      expect(await findUserById(db, adult.id)).toEqual({ ...adult, status: 'disabled', updatedAt: disabledAt });
    });

    it('updates and clears the contact claims', async () => {
      const db = database();
      const adult = adultUser(1);
      await insertUser(db, adult);
      await updateAdultContact(db, adult.id, { email: 'new.address+tag@example.test', phone: '+15550100' }, LATER);
      expect(await findUserById(db, adult.id)).toEqual({
        ...adult,
        email: 'new.address+tag@example.test',
        phone: '+15550100',
        updatedAt: LATER,
      });
      const cleared = isoAfter(LATER, 1000);
      await updateAdultContact(db, adult.id, { email: null, phone: null }, cleared);
      expect(await findUserById(db, adult.id)).toEqual({ ...adult, updatedAt: cleared });
    });

    it('refreshes only the contact values a sign-in asserts, keeping the others', async () => {
      const db = database();
      const adult = adultUser(1, { email: 'kept@example.test', phone: '+15550100' });
      await insertUser(db, adult);
      const child = childUser(2, adult.id);
      await insertUser(db, child);

      expect(await refreshAdultContact(db, adult.id, { phone: '+15550199' }, LATER)).toBe(true);
      expect(await findUserById(db, adult.id)).toEqual({ ...adult, phone: '+15550199', updatedAt: LATER });
      const later = isoAfter(LATER, 1000);
      expect(await refreshAdultContact(db, adult.id, { email: 'new@example.test' }, later)).toBe(true);
      expect(await findUserById(db, adult.id)).toEqual({ ...adult, email: 'new@example.test', phone: '+15550199', updatedAt: later });
      expect(await refreshAdultContact(db, adult.id, { email: 'both@example.test', phone: '+15550111' }, later)).toBe(true);
      expect(await findUserById(db, adult.id)).toMatchObject({ email: 'both@example.test', phone: '+15550111' });

      // Only adults have provider contact data; an unknown id changes nothing.
      expect(await refreshAdultContact(db, child.id, { email: 'child@example.test' }, later)).toBe(false);
      expect(await findUserById(db, child.id)).toEqual(child);
      expect(await refreshAdultContact(db, numberedId(99), { email: 'nobody@example.test' }, later)).toBe(false);
    });

    it('pages adults of a status oldest first, ties broken by id, with a cursor per page', async () => {
      const db = database();
      // Inserted out of order; 3 and 4 share their creation time.
      const times: Record<number, string> = {
        1: CREATED,
        2: isoAfter(CREATED, 1),
        3: isoAfter(CREATED, 2000),
        4: isoAfter(CREATED, 2000),
        5: isoAfter(CREATED, 4000),
      };
      const active: User[] = [];
      for (const n of [5, 4, 1, 3, 2]) {
        const user = adultUser(n, { createdAt: times[n] });
        active.push(user);
        await insertUser(db, user);
      }
      await insertUser(db, adultUser(6, { status: 'pending_approval', createdAt: isoAfter(CREATED, 3000) }));
      await insertUser(db, childUser(7, numberedId(1), { createdAt: isoAfter(CREATED, 3000) }));
      const expected = [1, 2, 3, 4, 5].map((n) => active.find((user) => user.id === numberedId(n)));

      const first = await listAdultsByStatus(db, 'active', { limit: 2 });
      expect(first).toEqual({ items: expected.slice(0, 2), next: { createdAt: times[2], id: numberedId(2) } });
      const second = await listAdultsByStatus(db, 'active', { limit: 2, after: first.next ?? undefined });
      expect(second).toEqual({ items: expected.slice(2, 4), next: { createdAt: times[4], id: numberedId(4) } });
      const third = await listAdultsByStatus(db, 'active', { limit: 2, after: second.next ?? undefined });
      expect(third).toEqual({ items: expected.slice(4), next: null });

      expect(await listAdultsByStatus(db, 'active', { limit: 5 })).toEqual({ items: expected, next: null });
      expect(await listAdultsByStatus(db, 'active', { limit: 10, after: START_OF_LIST })).toEqual({ items: expected, next: null });
      expect((await listAdultsByStatus(db, 'pending_approval', { limit: 10 })).items.map((user) => user.id)).toEqual([numberedId(6)]);
      expect(await listAdultsByStatus(db, 'disabled', { limit: 10 })).toEqual({ items: [], next: null });
    });

    it('keeps paging stable when users join before the cursor', async () => {
      const db = database();
      for (const n of [1, 2, 3]) await insertUser(db, adultUser(n, { createdAt: isoAfter(CREATED, n * 1000) }));
      const first = await listAdultsByStatus(db, 'active', { limit: 2 });
      await insertUser(db, adultUser(9, { createdAt: CREATED }));
      await insertUser(db, adultUser(8, { createdAt: isoAfter(CREATED, 5000) }));
      const rest = await listAdultsByStatus(db, 'active', { limit: 2, after: first.next ?? undefined });
      expect(rest.items.map((user) => user.id)).toEqual([numberedId(3), numberedId(8)]);
      expect(rest.next).toBeNull();
    });
  });
}
