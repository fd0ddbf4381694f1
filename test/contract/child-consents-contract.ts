import { describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../shared/audit/audit-log-store';
import { checkUsername, type ChildUsername } from '../../shared/children/child-username';
import { insertChildAccount } from '../../shared/children/child-account-store';
import type { ChildConsent } from '../../shared/children/child-consent';
import { endConsent, findConsentInForce, insertConsent, listConsentsOfChild, type NewChildConsent } from '../../shared/children/child-consent-store';
import { recordConsent, withdrawAllConsent, type ConsentDeps } from '../../shared/family/record-consent';
import type { Database } from '../../shared/db/database';
import { manualClock } from '../../shared/ports/clock';
import { cryptoRandom } from '../../shared/ports/random';
import type { Section } from '../../shared/users/user';
import { insertUser } from '../../shared/users/user-store';
import { adultUser, childUser, isoAfter, migratedDatabasePerSuite, numberedId } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

const GIVEN = '2025-05-06T07:08:09.123Z';
const PARENT = numberedId(1);
const PIN_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo';

function stored(username: string): ChildUsername {
  const checked = checkUsername(username);
  if (!checked.ok) throw new Error(`test username ${username} is not valid`);
  return checked.username;
}

/** Consent ids of their own kind (prefix `c`), numbered. */
const consentId = (n: number): string => numberedId(n, 'c');

function consent(n: number, childUserId: string, overrides: Partial<NewChildConsent> = {}): NewChildConsent {
  return {
    id: consentId(n),
    childUserId,
    parentUserId: PARENT,
    termsVersion: '2025-05',
    sections: ['announcements', 'events'],
    method: 'account_holder_confirmation',
    givenAt: GIVEN,
    ...overrides,
  };
}

/**
 * Registers the contract suite of the consent records (`shared/children/child-consent-store.ts` and
 * the writers of `shared/family/record-consent.ts`, which add audit rows) for one engine.
 * Audit rows are never emptied between tests, so each test uses children of its own numbers.
 * @param name the engine, shown in the suite's title.
 * @param factory the suite's database.
 */
export function describeChildConsentsContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Child consents contract: ${name}`, () => {
    const database = migratedDatabasePerSuite(factory);

    /** A child numbered `n` (scopes as given) of the parent, which is made with the first child of a test. */
    const seed = async (db: Database, n: number, scopes: Section[] = []): Promise<string> => {
      if ((await db.query('SELECT id FROM Users WHERE id = @id', { id: PARENT })).length === 0) await insertUser(db, adultUser(1));
      const child = childUser(n, PARENT);
      await db.transaction((tx) => insertChildAccount(tx, { user: child, username: stored(`kid-${n}`), secretHash: PIN_HASH, secretKind: 'pin', scopes }));
      return child.id;
    };

    const depsAt = (at: string, termsVersion = '2025-05'): ConsentDeps => ({
      clock: manualClock(at),
      random: cryptoRandom,
      consentTermsVersion: termsVersion,
    });

    /** The consent rows about a child, oldest first (a transaction's rows share their time: given before withdrawn). */
    const auditOf = async (db: Database, childUserId: string) =>
      (await listAuditEvents(db, { subjectUserId: childUserId, limit: 50 }))
        .filter((row) => row.eventType === 'consent_given' || row.eventType === 'consent_withdrawn')
        .sort((a, b) => a.occurredAt.localeCompare(b.occurredAt) || a.eventType.localeCompare(b.eventType))
        .map((row) => ({ eventType: row.eventType, actorUserId: row.actorUserId, targetId: row.targetId, details: row.details }));

    it('stores consents as revisions 1, 2, … and lists them newest first, at most `limit`', async () => {
      const db = database();
      const child = await seed(db, 10);
      await db.transaction(async (tx) => {
        await insertConsent(tx, consent(1, child, { sections: [] }));
        await endConsent(tx, consentId(1), 'replaced', isoAfter(GIVEN, 1000));
        // Given in the same millisecond as it replaces the first: the revision still orders them.
        await insertConsent(tx, consent(2, child, { givenAt: isoAfter(GIVEN, 1000), sections: ['media'] }));
        await endConsent(tx, consentId(2), 'replaced', isoAfter(GIVEN, 1000));
        await insertConsent(tx, consent(3, child, { givenAt: isoAfter(GIVEN, 1000), termsVersion: '2025-06' }));
      });
      const expected: ChildConsent[] = [
        { ...consent(3, child, { givenAt: isoAfter(GIVEN, 1000), termsVersion: '2025-06' }), revision: 3, replacedAt: null, withdrawnAt: null },
        { ...consent(2, child, { givenAt: isoAfter(GIVEN, 1000), sections: ['media'] }), revision: 2, replacedAt: isoAfter(GIVEN, 1000), withdrawnAt: null },
        { ...consent(1, child, { sections: [] }), revision: 1, replacedAt: isoAfter(GIVEN, 1000), withdrawnAt: null },
      ];
      expect(await listConsentsOfChild(db, child, 10)).toEqual(expected);
      expect(await listConsentsOfChild(db, child, 2)).toEqual(expected.slice(0, 2));
      expect(await findConsentInForce(db, child)).toEqual(expected[0]);
      // Another child's list is its own.
      const other = await seed(db, 11);
      expect(await listConsentsOfChild(db, other, 10)).toEqual([]);
      expect(await findConsentInForce(db, other)).toBeUndefined();
    });

    it('keeps at most one consent in force per child, and ends a consent only once', async () => {
      const db = database();
      const child = await seed(db, 12);
      await db.transaction((tx) => insertConsent(tx, consent(1, child)));
      await expect(db.transaction((tx) => insertConsent(tx, consent(2, child)))).rejects.toThrow();
      expect((await listConsentsOfChild(db, child, 10)).map((row) => row.id)).toEqual([consentId(1)]);

      expect(await db.transaction((tx) => endConsent(tx, consentId(1), 'withdrawn', isoAfter(GIVEN, 5)))).toBe(true);
      expect(await db.transaction((tx) => endConsent(tx, consentId(1), 'replaced', isoAfter(GIVEN, 6)))).toBe(false);
      expect(await db.transaction((tx) => endConsent(tx, consentId(1), 'withdrawn', isoAfter(GIVEN, 7)))).toBe(false);
      expect(await findConsentInForce(db, child)).toBeUndefined();
      expect(await listConsentsOfChild(db, child, 10)).toEqual([
        { ...consent(1, child), revision: 1, replacedAt: null, withdrawnAt: isoAfter(GIVEN, 5) },
      ]);
    });

    it('records a consent with its audit row, replaces it for new sections or terms, and skips an unchanged one', async () => {
      const db = database();
      const child = await seed(db, 13, ['announcements', 'events']);
      const first = await db.transaction((tx) =>
        recordConsent(tx, { parentUserId: PARENT, childUserId: child, sections: ['events', 'announcements', 'events'], previousSections: [] }, depsAt(GIVEN)),
      );
      expect(first).toMatch(/^[0-9a-f-]{36}$/);
      // The same sections under the same terms: nothing to record.
      const same = await db.transaction((tx) =>
        recordConsent(tx, { parentUserId: PARENT, childUserId: child, sections: ['announcements', 'events'], previousSections: ['announcements', 'events'] }, depsAt(isoAfter(GIVEN, 1000))),
      );
      expect(same).toBeUndefined();
      // Narrowed: a new consent, and the section taken away withdrawn from the one it replaces.
      const narrowed = await db.transaction((tx) =>
        recordConsent(tx, { parentUserId: PARENT, childUserId: child, sections: ['events'], previousSections: ['announcements', 'events'] }, depsAt(isoAfter(GIVEN, 2000))),
      );
      // The same sections under new terms: confirmed again.
      const renewed = await db.transaction((tx) =>
        recordConsent(tx, { parentUserId: PARENT, childUserId: child, sections: ['events'], previousSections: ['events'] }, depsAt(isoAfter(GIVEN, 3000), '2025-09')),
      );
      expect(new Set([first, narrowed, renewed]).size).toBe(3);

      expect(
        (await listConsentsOfChild(db, child, 10)).map((row) => [row.id, row.revision, row.termsVersion, row.sections, row.givenAt, row.replacedAt, row.withdrawnAt]),
      ).toEqual([
        [renewed, 3, '2025-09', ['events'], isoAfter(GIVEN, 3000), null, null],
        [narrowed, 2, '2025-05', ['events'], isoAfter(GIVEN, 2000), isoAfter(GIVEN, 3000), null],
        [first, 1, '2025-05', ['announcements', 'events'], GIVEN, isoAfter(GIVEN, 2000), null],
      ]);
      const given = (id: string | undefined, terms: string, sections: string) => ({
        eventType: 'consent_given',
        actorUserId: PARENT,
        targetId: id,
        details: { termsVersion: terms, sections, method: 'account_holder_confirmation' },
      });
      expect(await auditOf(db, child)).toEqual([
        given(first, '2025-05', 'announcements,events'),
        given(narrowed, '2025-05', 'events'),
        { eventType: 'consent_withdrawn', actorUserId: PARENT, targetId: first, details: { sections: 'announcements', allSections: false } },
        given(renewed, '2025-09', 'events'),
      ]);
    });

    it('withdraws all consent: the one in force is marked withdrawn, one audit row names every section', async () => {
      const db = database();
      const child = await seed(db, 14, ['groups', 'media']);
      const given = await db.transaction((tx) =>
        recordConsent(tx, { parentUserId: PARENT, childUserId: child, sections: ['media', 'groups'], previousSections: [] }, depsAt(GIVEN)),
      );
      const withdrawn = await db.transaction((tx) =>
        withdrawAllConsent(tx, { parentUserId: PARENT, childUserId: child, openSections: ['groups', 'media'] }, depsAt(isoAfter(GIVEN, 60_000))),
      );
      expect(withdrawn).toBe(given);
      expect(await findConsentInForce(db, child)).toBeUndefined();
      expect(await listConsentsOfChild(db, child, 10)).toMatchObject([
        { id: given, sections: ['groups', 'media'], replacedAt: null, withdrawnAt: isoAfter(GIVEN, 60_000) },
      ]);
      expect((await auditOf(db, child)).slice(1)).toEqual([
        { eventType: 'consent_withdrawn', actorUserId: PARENT, targetId: given, details: { sections: 'groups,media', allSections: true } },
      ]);
    });

    it('handles a child from before consent records: a first consent withdraws what was open, a withdrawal names the open sections', async () => {
      const db = database();
      const child = await seed(db, 15, ['announcements', 'media']);
      const first = await db.transaction((tx) =>
        recordConsent(tx, { parentUserId: PARENT, childUserId: child, sections: ['media'], previousSections: ['announcements', 'media'] }, depsAt(GIVEN)),
      );
      expect((await listConsentsOfChild(db, child, 10)).map((row) => row.id)).toEqual([first]);
      const legacy = await seed(db, 16, ['events']);
      expect(
        await db.transaction((tx) => withdrawAllConsent(tx, { parentUserId: PARENT, childUserId: legacy, openSections: ['events'] }, depsAt(GIVEN))),
      ).toBeUndefined();
      expect(await auditOf(db, child)).toEqual([
        expect.objectContaining({ eventType: 'consent_given', targetId: first }),
        { eventType: 'consent_withdrawn', actorUserId: PARENT, targetId: null, details: { sections: 'announcements', allSections: false } },
      ]);
      expect(await auditOf(db, legacy)).toEqual([
        { eventType: 'consent_withdrawn', actorUserId: PARENT, targetId: null, details: { sections: 'events', allSections: true } },
      ]);
    });
  });
}
