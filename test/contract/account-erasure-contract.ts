import { describe, expect, it } from 'vitest';
import { insertAnnouncement } from '../../shared/announcements/announcement-store';
import { writeAudit } from '../../shared/audit/write-audit';
import { checkUsername, type ChildUsername } from '../../shared/children/child-username';
import { lockUsernameThrottle } from '../../shared/throttles/sign-in-throttle';
import { usernameThrottleKey } from '../../shared/throttles/throttle-keys';
import { findChildById, insertChildAccount } from '../../shared/children/child-account-store';
import { insertConsent, listConsentsOfChild } from '../../shared/children/child-consent-store';
import type { Database } from '../../shared/db/database';
import { lazyDatabase } from '../../shared/db/lazy-database';
import { createLogger } from '../../shared/logging/logger';
import { DEFAULT_PREFERENCES, readPreferences, updatePreferences } from '../../shared/users/notification-preferences';
import { isActiveUser, registerPushToken } from '../../shared/users/push-tokens';
import type { Announcement, AnnouncementStatus } from '../../shared/announcements/announcement';
import { findAnnouncementById } from '../../shared/announcements/announcement-store';
import { claimDeliveries, claimDelivery, finishDeliveries, finishDelivery } from '../../shared/notifications/ledger/delivery-ledger';
import { markEmailHardBounce } from '../../shared/notifications/channels/email-hard-bounces';
import { NOTICE_LEDGER } from '../../shared/notifications/ledger/leased-rows';
import { recordChildLockedNotice } from '../../shared/messages/account-notices';
import { clearProviderSmsOptOut, recordProviderSmsOptOut } from '../../shared/notifications/channels/sms-opt-outs';
import { changePreferences, registerDevice } from '../../shared/notifications/preferences/notification-settings';
import { manualClock } from '../../shared/ports/clock';
import { cryptoRandom } from '../../shared/ports/random';
import { endSession, insertSession } from '../../shared/sessions/session-store';
import type { Session } from '../../shared/sessions/session';
import { publicSessionId } from '../../shared/sessions/session-view';
import { countChildrenNotErased, countOtherActiveAdmins, isUsernameReserved, pruneReleasedUsernamesBatch, reserveUsername } from '../../shared/users/account-erasure-store';
import { readAllUserSessions, readAuditRowsNaming, readUserDevices } from '../../shared/users/account-export-store';
import { eraseChildInTransaction, reservedUsernameKey, USERNAME_QUARANTINE_DAYS } from '../../shared/users/account-erasure';
import { eraseInactiveAdult, eraseOwnAccount } from '../../shared/data-rights/erase-account';
import { exportAccount } from '../../shared/data-rights/export-account';
import { findUserById, insertUser, refreshAdultContact } from '../../shared/users/user-store';
import { LogSink } from '../helpers/log-sink';
import { adultUser, childUser, ISSUER, isoAfter, migratedDatabasePerSuite, numberedId } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

const NOW = '2025-06-07T08:09:10.111Z';
const DAY = 24 * 60 * 60 * 1000;
const PEPPER = 'contract-pepper-erasure-0123456789';
const PIN_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo';
const TOKEN = 'ExponentPushToken[erasure-contract-device]';

function stored(username: string): ChildUsername {
  const checked = checkUsername(username);
  if (!checked.ok) throw new Error(`test username ${username} is not valid`);
  return checked.username;
}

function announcement(id: string, authorId: string, status: AnnouncementStatus): Announcement {
  const reviewed = status === 'approved' || status === 'rejected' || status === 'published';
  return {
    id,
    authorId,
    title: `About ${status}`,
    body: 'Saturday',
    channels: ['email'],
    status,
    rejectionReason: status === 'rejected' ? 'Too vague' : null,
    createdAt: NOW,
    updatedAt: NOW,
    submittedAt: status === 'draft' ? null : NOW,
    reviewedAt: reviewed ? NOW : null,
    reviewedBy: null,
    publishedAt: status === 'published' ? NOW : null,
    publishedBy: null,
    fanoutEnqueuedAt: status === 'published' ? NOW : null,
  };
}

function session(id: string, userId: string, accountType: 'adult' | 'child'): Session {
  return {
    id: id.padEnd(22, '_'),
    userId,
    secretHash: 'b4e2d1ff'.repeat(8),
    accountType,
    createdAt: NOW,
    lastUsedAt: NOW,
    idleExpiresAt: isoAfter(NOW, 2 * DAY),
    absoluteExpiresAt: isoAfter(NOW, 7 * DAY),
    endedAt: null,
    endReason: null,
    clientLabel: 'Android app',
  };
}

/**
 * Registers the contract suite of erasure and export (`shared/users/account-erasure-store.ts`,
 * `account-export-store.ts` and the use cases over them) for one engine.
 * @param name the engine, shown in the suite's title.
 * @param factory the suite's database.
 */
export function describeAccountErasureContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Account erasure and export contract: ${name}`, () => {
    const database = migratedDatabasePerSuite(factory);
    const deps = (db: Database, at = NOW) => ({
      database: lazyDatabase(async () => db),
      clock: manualClock(at),
      random: cryptoRandom,
      logger: createLogger({ service: 'api', level: 'info', destination: new LogSink() }),
      pepper: PEPPER,
    });

    /** What `deleteChild` does around the erasure: the child's username lock first, as every change of a child takes it. */
    const eraseChild = (db: Database, parentUserId: string, childUserId: string, username: ChildUsername) =>
      db.transaction(async (tx) => {
        await lockUsernameThrottle(tx, usernameThrottleKey(PEPPER, username));
        return eraseChildInTransaction(tx, { parentUserId, childUserId, username }, deps(db));
      });

    /** A parent numbered `n` with e-mail and phone, and a child `n + 1` with a session, a device, preferences and a consent. */
    const seedFamily = async (db: Database, n: number) => {
      const parent = adultUser(n, { email: `parent-${n}@example.test`, phone: '+447700900123' });
      const child = childUser(n + 1, parent.id);
      await insertUser(db, parent);
      await db.transaction(async (tx) => {
        await insertChildAccount(tx, { user: child, username: stored(`erasable-${n}`), secretHash: PIN_HASH, secretKind: 'pin', scopes: ['events'] });
        await insertConsent(tx, {
          id: numberedId(n, 'c'),
          childUserId: child.id,
          parentUserId: parent.id,
          termsVersion: '2025-06',
          sections: ['events'],
          method: 'account_holder_confirmation',
          givenAt: NOW,
        });
        await insertSession(tx, session(`kid-${n}`, child.id, 'child'));
        await insertSession(tx, session(`parent-${n}`, parent.id, 'adult'));
        await updatePreferences(tx, child.id, { sms: false }, NOW);
      });
      await db.transaction((tx) => registerPushToken(tx, child.id, `${TOKEN.slice(0, -1)}-${n}]`, NOW));
      return { parent, child, username: stored(`erasable-${n}`) };
    };

    it("erases a child: credentials, sessions, devices and preferences go, the row stays a tombstone, the consent stays; the name is reserved for the quarantine", async () => {
      const db = database();
      const { parent, child, username } = await seedFamily(db, 10);
      const facts = await eraseChild(db, parent.id, child.id, username);
      expect(facts).toEqual({ sessions: 1, devices: 1 });
      expect(await findChildById(db, child.id)).toBeUndefined();
      expect(await findUserById(db, child.id)).toMatchObject({ status: 'erased', parentId: parent.id, accountType: 'child', updatedAt: NOW });
      expect(await readAllUserSessions(db, child.id, 10)).toEqual([]);
      expect(await readUserDevices(db, child.id)).toEqual([]);
      expect(await readPreferences(db, child.id)).toEqual(DEFAULT_PREFERENCES);
      expect((await listConsentsOfChild(db, child.id, 10)).map((consent) => consent.id)).toEqual([numberedId(10, 'c')]);
      // The parent's own data is untouched.
      expect(await readAllUserSessions(db, parent.id, 10)).toHaveLength(1);

      const key = reservedUsernameKey(PEPPER, username);
      expect(key).toMatch(/^[0-9a-f]{64}$/);
      expect(await isUsernameReserved(db, key, NOW)).toBe(true);
      expect(await isUsernameReserved(db, key, isoAfter(NOW, USERNAME_QUARANTINE_DAYS * DAY - 1))).toBe(true);
      expect(await isUsernameReserved(db, key, isoAfter(NOW, USERNAME_QUARANTINE_DAYS * DAY))).toBe(false);
      expect(await isUsernameReserved(db, reservedUsernameKey(PEPPER, stored('someone-else')), NOW)).toBe(false);

      const [erased] = await readAuditRowsNaming(db, child.id, 10);
      expect(erased).toMatchObject({
        eventType: 'account_erased',
        actorUserId: parent.id,
        subjectUserId: child.id,
        details: { accountType: 'child', sessions: 1, devices: 1 },
      });
      // Erased once: a second erasure finds a tombstone and does nothing.
      expect(await eraseChild(db, parent.id, child.id, username)).toBeUndefined();
      expect((await readAuditRowsNaming(db, child.id, 10)).filter((row) => row.eventType === 'account_erased')).toHaveLength(1);
    });

    it('gives a name reserved again the new dates', async () => {
      const db = database();
      const key = reservedUsernameKey(PEPPER, stored('twice-erased'));
      await db.transaction((tx) => reserveUsername(tx, key, NOW, isoAfter(NOW, DAY)));
      await db.transaction((tx) => reserveUsername(tx, key, isoAfter(NOW, 2 * DAY), isoAfter(NOW, 3 * DAY)));
      expect(await isUsernameReserved(db, key, isoAfter(NOW, 2 * DAY + 1))).toBe(true);
      expect(await isUsernameReserved(db, key, isoAfter(NOW, 3 * DAY))).toBe(false);
    });

    it('prunes released reservations only, oldest first, a batch at a time', async () => {
      const db = database();
      const keys = ['released-1', 'released-2', 'held'].map((name) => reservedUsernameKey(PEPPER, stored(name)));
      await db.transaction((tx) => reserveUsername(tx, keys[0] as string, NOW, isoAfter(NOW, DAY)));
      await db.transaction((tx) => reserveUsername(tx, keys[1] as string, NOW, isoAfter(NOW, 2 * DAY)));
      await db.transaction((tx) => reserveUsername(tx, keys[2] as string, NOW, isoAfter(NOW, 30 * DAY)));
      const later = isoAfter(NOW, 3 * DAY);
      expect(await pruneReleasedUsernamesBatch(db, later, 1)).toBe(1);
      expect(await pruneReleasedUsernamesBatch(db, later, 10)).toBe(1);
      expect(await pruneReleasedUsernamesBatch(db, later, 10)).toBe(0);
      expect(await isUsernameReserved(db, keys[2] as string, later)).toBe(true);
    });

    it("refuses a parent's erasure while a child is not erased, then erases the adult to a tombstone that frees their identity", async () => {
      const db = database();
      const { parent, child, username } = await seedFamily(db, 20);
      expect(await countChildrenNotErased(db, parent.id)).toBe(1);
      const refused = await eraseOwnAccount(parent, deps(db));
      expect(refused).toMatchObject({ ok: false, problem: { code: 'children_not_erased' } });
      expect(await findUserById(db, parent.id)).toEqual(parent);

      await eraseChild(db, parent.id, child.id, username);
      expect(await countChildrenNotErased(db, parent.id)).toBe(0);
      expect(await eraseOwnAccount(parent, deps(db))).toEqual({ ok: true });
      expect(await findUserById(db, parent.id)).toEqual({
        ...parent,
        status: 'erased',
        issuer: null,
        subject: null,
        email: null,
        phone: null,
        updatedAt: NOW,
      });
      expect(await readAllUserSessions(db, parent.id, 10)).toEqual([]);
      const erased = (await readAuditRowsNaming(db, parent.id, 10)).filter((row) => row.subjectUserId === parent.id);
      expect(erased).toHaveLength(1);
      expect(erased[0]).toMatchObject({ eventType: 'account_erased', actorUserId: parent.id, subjectUserId: parent.id, details: { accountType: 'adult', sessions: 1, devices: 0 } });
      // The same identity signs up afresh: the tombstone holds no issuer or subject.
      await insertUser(db, adultUser(22, { issuer: ISSUER, subject: parent.subject }));
      // A second erasure of the tombstone: its session is gone, so it is no longer signed in.
      expect(await eraseOwnAccount(parent, deps(db))).toMatchObject({ ok: false, problem: { code: 'unauthenticated' } });
      expect(await eraseOwnAccount(child, deps(db))).toMatchObject({ ok: false, problem: { code: 'forbidden' } });
    });

    it("exports a parent's data: profile, contact, preferences, devices, sessions, announcements, children with consents and activity, audit rows", async () => {
      const db = database();
      const { parent, child } = await seedFamily(db, 30);
      const parentSession = session('parent-30', parent.id, 'adult').id;
      const ended = session('old-30', parent.id, 'adult');
      await insertSession(db, ended);
      await endSession(db, ended.id, 'logout', isoAfter(NOW, 1000));
      await db.transaction((tx) => registerPushToken(tx, parent.id, TOKEN, NOW));
      await insertAnnouncement(db, {
        id: numberedId(31, 'a'),
        authorId: parent.id,
        title: 'Bake sale',
        body: 'Saturday',
        channels: ['push', 'email'],
        status: 'draft',
        rejectionReason: null,
        createdAt: NOW,
        updatedAt: NOW,
        submittedAt: null,
        reviewedAt: null,
        reviewedBy: null,
        publishedAt: null,
        publishedBy: null,
        fanoutEnqueuedAt: null,
      });
      const audit = { clock: manualClock(NOW), random: cryptoRandom };
      await writeAudit(db, { eventType: 'authn_login_success', outcome: 'success', actorUserId: parent.id, subjectUserId: parent.id, targetType: 'session', targetId: parentSession }, audit);
      await writeAudit(db, { eventType: 'authn_login_fail', outcome: 'failure', subjectUserId: child.id, reason: 'bad_credentials' }, audit);
      // Not the parent's: another adult's row.
      await insertUser(db, adultUser(39));
      await writeAudit(db, { eventType: 'authn_login_success', outcome: 'success', actorUserId: numberedId(39), subjectUserId: numberedId(39) }, audit);

      const exported = await exportAccount({ user: parent, sessionRowId: parentSession }, deps(db, isoAfter(NOW, 5000)));
      expect(exported.exportedAt).toBe(isoAfter(NOW, 5000));
      expect(exported.profile).toEqual({
        id: parent.id,
        accountType: 'adult',
        role: 'member',
        status: 'active',
        createdAt: parent.createdAt,
        updatedAt: parent.updatedAt,
        identity: { issuer: ISSUER, subject: parent.subject },
        parentId: null,
        username: null,
        signInMethod: null,
        scopes: null,
      });
      expect(exported.contact).toEqual({ email: parent.email, phone: parent.phone });
      expect(exported.preferences).toEqual(DEFAULT_PREFERENCES);
      expect(exported.devices).toEqual([{ token: TOKEN, registeredAt: NOW, updatedAt: NOW }]);
      expect(exported.sessions.map((item) => [item.id, item.current, item.endReason, item.client])).toEqual(
        expect.arrayContaining([
          [publicSessionId(parentSession), true, null, 'Android app'],
          [publicSessionId(ended.id), false, 'logout', 'Android app'],
        ]),
      );
      expect(exported.sessions).toHaveLength(2);
      expect(exported.announcements).toEqual([expect.objectContaining({ id: numberedId(31, 'a'), title: 'Bake sale', channels: ['push', 'email'], status: 'draft' })]);
      expect(exported.consents).toEqual([]);
      expect(exported.children).toEqual([
        {
          id: child.id,
          status: 'active',
          createdAt: child.createdAt,
          account: { username: 'erasable-30', signInMethod: 'pin', scopes: ['events'], locked: false, deletedAt: null },
          consents: [expect.objectContaining({ id: numberedId(30, 'c'), sections: ['events'], withdrawnAt: null })],
          activity: [{ time: NOW, outcome: 'sign_in_failed', reason: 'bad_credentials' }],
        },
      ]);
      // Only rows naming the parent; a session's row id shows as its public id.
      expect(exported.audit.map((row) => [row.eventType, row.targetId])).toEqual([['authn_login_success', publicSessionId(parentSession)]]);

      // The child's own export: its account and the consents about it, no parent contact data.
      const childExport = await exportAccount({ user: child, sessionRowId: session('kid-30', child.id, 'child').id }, deps(db));
      expect(childExport.profile).toMatchObject({ username: 'erasable-30', signInMethod: 'pin', scopes: ['events'], parentId: parent.id, identity: null });
      expect(childExport.preferences).toEqual({ ...DEFAULT_PREFERENCES, sms: false });
      expect(childExport.consents.map((consent) => consent.id)).toEqual([numberedId(30, 'c')]);
      expect(childExport.children).toEqual([]);
      expect(childExport.audit.map((row) => row.eventType)).toEqual(['authn_login_fail']);
      expect(JSON.stringify(childExport)).not.toContain(String(parent.email));

      // An erased child stays in the parent's export as a tombstone with its consents.
      await eraseChild(db, parent.id, child.id, stored('erasable-30'));
      const after = await exportAccount({ user: parent, sessionRowId: parentSession }, deps(db));
      expect(after.children).toEqual([expect.objectContaining({ id: child.id, status: 'erased', account: null, consents: [expect.objectContaining({ id: numberedId(30, 'c') })] })]);
      expect(JSON.stringify(after)).not.toContain('erasable-30');
    });

    it("erases an adult's unpublished announcements (drafts, queued, approved, rejected) and keeps the published ones", async () => {
      const db = database();
      const author = adultUser(40, { role: 'author' });
      const other = adultUser(41, { role: 'author' });
      await insertUser(db, author);
      await insertUser(db, other);
      const statuses: AnnouncementStatus[] = ['draft', 'queued', 'approved', 'rejected', 'published'];
      for (const [n, status] of statuses.entries()) await insertAnnouncement(db, announcement(numberedId(40 + n, 'a'), author.id, status));
      await insertAnnouncement(db, announcement(numberedId(49, 'a'), other.id, 'draft'));
      // The published one went out: its ledger holds the author's tombstone's announcement id.
      const key = { announcementId: numberedId(44, 'a'), userId: other.id, channel: 'email' as const };
      expect(await claimDelivery(db, key, NOW, isoAfter(NOW, 60_000))).toBe('claimed');

      expect(await eraseOwnAccount(author, deps(db))).toEqual({ ok: true });
      for (const [n, status] of statuses.entries()) {
        const kept = await findAnnouncementById(db, numberedId(40 + n, 'a'));
        expect(kept?.status, status).toBe(status === 'published' ? 'published' : undefined);
      }
      expect(await findAnnouncementById(db, numberedId(49, 'a'))).toMatchObject({ status: 'draft', authorId: other.id });
      const [erased] = (await readAuditRowsNaming(db, author.id, 10)).filter((row) => row.eventType === 'account_erased');
      expect(erased?.details).toEqual({ accountType: 'adult', sessions: 0, devices: 0, announcements: 4 });
      // Nothing lands on the tombstone afterwards: no contact data, no device.
      expect(await refreshAdultContact(db, author.id, { email: 'back@example.test' }, isoAfter(NOW, 1000))).toBe(false);
      expect(await db.transaction((tx) => registerPushToken(tx, author.id, TOKEN, NOW))).toEqual({ registered: false, movedFromUserId: null });
      expect(await readUserDevices(db, author.id)).toEqual([]);
      expect(await isActiveUser(db, author.id)).toBe(false);
      expect(await isActiveUser(db, other.id)).toBe(true);
      expect(await findUserById(db, author.id)).toMatchObject({ status: 'erased', email: null, phone: null });
    });

    it('refuses the erasure of the only active administrator, and allows it while another one is active', async () => {
      const db = database();
      const admin = adultUser(50, { role: 'admin' });
      await insertUser(db, admin);
      await insertUser(db, adultUser(51, { role: 'admin', status: 'disabled' }));
      await insertUser(db, adultUser(52, { role: 'member' }));
      expect(await countOtherActiveAdmins(db, admin.id)).toBe(0);
      expect(await eraseOwnAccount(admin, deps(db))).toMatchObject({ ok: false, problem: { code: 'invalid_transition' } });
      expect(await findUserById(db, admin.id)).toEqual(admin);

      const second = adultUser(53, { role: 'admin' });
      await insertUser(db, second);
      expect(await countOtherActiveAdmins(db, admin.id)).toBe(1);
      expect(await eraseOwnAccount(admin, deps(db))).toEqual({ ok: true });
      // Now the second is the last one.
      expect(await countOtherActiveAdmins(db, second.id)).toBe(0);
      expect(await eraseOwnAccount(second, deps(db))).toMatchObject({ ok: false, problem: { code: 'invalid_transition' } });
    });

    it('lets an administrator erase an adult pending approval or disabled, and nothing else', async () => {
      const db = database();
      const admin = adultUser(60, { role: 'admin' });
      const pending = adultUser(61, { status: 'pending_approval', email: 'pending@example.test' });
      const disabled = adultUser(62, { status: 'disabled', phone: '+447700900555' });
      const active = adultUser(63);
      const parentOfKid = adultUser(64, { status: 'disabled' });
      for (const user of [admin, pending, disabled, active, parentOfKid]) await insertUser(db, user);
      await insertChildAccount(db, { user: childUser(65, parentOfKid.id), username: stored('kid-of-disabled'), secretHash: PIN_HASH, secretKind: 'pin', scopes: [] });
      await insertAnnouncement(db, announcement(numberedId(61, 'a'), disabled.id, 'queued'));

      expect(await eraseInactiveAdult(active, pending.id, deps(db))).toMatchObject({ ok: false, problem: { code: 'forbidden' } });
      expect(await eraseInactiveAdult(admin, active.id, deps(db))).toMatchObject({ ok: false, problem: { code: 'invalid_transition' } });
      expect(await eraseInactiveAdult(admin, admin.id, deps(db))).toMatchObject({ ok: false, problem: { code: 'invalid_transition' } });
      expect(await eraseInactiveAdult(admin, numberedId(65), deps(db))).toMatchObject({ ok: false, problem: { code: 'invalid_request' } });
      expect(await eraseInactiveAdult(admin, numberedId(69), deps(db))).toMatchObject({ ok: false, problem: { code: 'not_found' } });
      expect(await eraseInactiveAdult(admin, parentOfKid.id, deps(db))).toMatchObject({ ok: false, problem: { code: 'children_not_erased' } });
      expect(await findUserById(db, active.id)).toEqual(active);
      expect(await findUserById(db, parentOfKid.id)).toEqual(parentOfKid);

      for (const target of [pending, disabled]) {
        expect(await eraseInactiveAdult(admin, target.id, deps(db))).toEqual({ ok: true });
        expect(await findUserById(db, target.id)).toEqual({ ...target, status: 'erased', issuer: null, subject: null, email: null, phone: null, updatedAt: NOW });
        const rows = (await readAuditRowsNaming(db, target.id, 10)).filter((row) => row.eventType === 'account_erased');
        expect(rows.map((row) => [row.actorUserId, row.subjectUserId, row.details])).toEqual([
          [admin.id, target.id, { accountType: 'adult', sessions: 0, devices: 0, announcements: target === disabled ? 1 : 0, from: target.status }],
        ]);
      }
      expect(await findAnnouncementById(db, numberedId(61, 'a'))).toBeUndefined();
      // Erased: a tombstone is not found.
      expect(await eraseInactiveAdult(admin, pending.id, deps(db))).toMatchObject({ ok: false, problem: { code: 'not_found' } });
    });

    it("exports what was sent to the caller: announcement deliveries, account notices with theirs, and the bounce and STOP lists", async () => {
      const db = database();
      const { parent, child } = await seedFamily(db, 70);
      const author = adultUser(72, { role: 'author' });
      await insertUser(db, author);
      await insertUser(db, adultUser(73, { email: 'someone-else@example.test' }));
      await insertAnnouncement(db, announcement(numberedId(70, 'a'), author.id, 'published'));
      const mine = { announcementId: numberedId(70, 'a'), userId: parent.id, channel: 'email' as const };
      expect(await claimDelivery(db, mine, NOW, isoAfter(NOW, 60_000))).toBe('claimed');
      await finishDelivery(db, mine, { result: 'hard_bounce', providerCode: 'Bounced', providerMessageId: 'provider-op-1' }, isoAfter(NOW, 1000));
      // Someone else's row of the same announcement.
      expect(await claimDelivery(db, { ...mine, userId: numberedId(73) }, NOW, isoAfter(NOW, 60_000))).toBe('claimed');
      const notice = await db.transaction((tx) =>
        recordChildLockedNotice(tx, { parentId: parent.id, childId: child.id, lockedAt: NOW }, { clock: manualClock(NOW), random: cryptoRandom }),
      );
      const noticeEmail = { announcementId: notice.id, userId: parent.id, channel: 'email' as const };
      expect(await claimDeliveries(db, [noticeEmail], NOW, isoAfter(NOW, 60_000), NOTICE_LEDGER)).toEqual(['claimed']);
      await finishDeliveries(db, db.dialect, notice.id, 'email', [{ userId: parent.id, result: 'accepted', providerMessageId: 'provider-op-2' }], isoAfter(NOW, 2000), NOTICE_LEDGER);
      await markEmailHardBounce(db, String(parent.email), 'Bounced', isoAfter(NOW, 3000));
      await markEmailHardBounce(db, 'someone-else@example.test', 'Bounced', isoAfter(NOW, 3000));

      const exported = await exportAccount({ user: parent, sessionRowId: session('parent-70', parent.id, 'adult').id }, deps(db));
      expect(exported.notifications).toEqual([
        { announcementId: numberedId(70, 'a'), channel: 'email', result: 'hard_bounce', createdAt: NOW, updatedAt: isoAfter(NOW, 1000) },
      ]);
      expect(exported.notices).toEqual([
        {
          id: notice.id,
          kind: 'child_locked',
          subjectUserId: child.id,
          eventAt: NOW,
          createdAt: NOW,
          deliveries: [{ channel: 'email', result: 'accepted', createdAt: NOW, updatedAt: isoAfter(NOW, 2000) }],
        },
      ]);
      expect(exported.contactLists).toEqual({ emailHardBouncedAt: isoAfter(NOW, 3000), smsOptedOutAt: null });
      expect(JSON.stringify(exported)).not.toContain('provider-op');

      // A STOP in force shows; a later START takes it back.
      await recordProviderSmsOptOut(db, String(parent.phone), isoAfter(NOW, 4000));
      expect((await exportAccount({ user: parent, sessionRowId: 'none' }, deps(db))).contactLists.smsOptedOutAt).toBe(isoAfter(NOW, 4000));
      await clearProviderSmsOptOut(db, String(parent.phone), isoAfter(NOW, 5000));
      expect((await exportAccount({ user: parent, sessionRowId: 'none' }, deps(db))).contactLists.smsOptedOutAt).toBeNull();

      // The child: none of the parent's notices, deliveries or lists.
      const childExport = await exportAccount({ user: child, sessionRowId: 'none' }, deps(db));
      expect([childExport.notifications, childExport.notices, childExport.contactLists]).toEqual([[], [], { emailHardBouncedAt: null, smsOptedOutAt: null }]);
    });

    it('changes no setting of an account that is no longer active', async () => {
      const db = database();
      const adult = adultUser(80);
      await insertUser(db, adult);
      const settings = deps(db);
      expect(await registerDevice(adult, TOKEN, settings)).toBeUndefined();
      expect(await changePreferences(adult, { sms: false }, settings)).toEqual({ ...DEFAULT_PREFERENCES, sms: false });
      expect(await eraseOwnAccount(adult, settings)).toEqual({ ok: true });
      expect(await registerDevice(adult, TOKEN, settings)).toMatchObject({ code: 'unauthenticated' });
      expect(await changePreferences(adult, { push: false }, settings)).toMatchObject({ code: 'unauthenticated' });
      expect(await readUserDevices(db, adult.id)).toEqual([]);
      expect(await readPreferences(db, adult.id)).toEqual(DEFAULT_PREFERENCES);
    });
  });
}
