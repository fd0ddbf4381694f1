import { describe, expect, it } from 'vitest';
import type { ChildUsername } from '../../shared/children/child-username';
import { insertChildAccount, markChildDeleted } from '../../shared/children/child-account-store';
import type { Database } from '../../shared/db/database';
import { canonicalizeStoredContacts } from '../../shared/db/migrations/canonical-contacts';
import { isEmailHardBounced, markEmailHardBounce } from '../../shared/notifications/channels/email-hard-bounces';
import { DEFAULT_PREFERENCES, readPreferences, updatePreferences } from '../../shared/users/notification-preferences';
import {
  countPushTokens,
  MAX_DEVICES_PER_USER,
  pushTokensInRange,
  registerPushToken,
  removePushToken,
  removeStalePushToken,
} from '../../shared/users/push-tokens';
import {
  countRecipients,
  FIRST_USER_ID,
  recipientIdsAfter,
  recipientsAfter,
  recipientsOfBatch,
  type Recipient,
} from '../../shared/notifications/engine/recipients';
import { clearProviderSmsOptOut, recordProviderSmsOptOut, smsOptOutOf, smsOptOutsOf } from '../../shared/notifications/channels/sms-opt-outs';
import type { Section, User } from '../../shared/users/user';
import { insertUser, updateAdultContact } from '../../shared/users/user-store';
import { adultUser, childUser, isoAfter, migratedDatabasePerSuite, numberedId } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

const NOW = '2031-05-10T08:00:00.000Z';
const ALL = ['push', 'sms', 'email'] as const;

const token = (label: string): string => `ExponentPushToken[${label}]`;

async function register(db: Database, userId: string, device: string, at = NOW): Promise<{ registered: boolean; movedFromUserId: string | null }> {
  return db.transaction((tx) => registerPushToken(tx, userId, device, at));
}

async function addAdult(db: Database, n: number, overrides: Partial<User> = {}): Promise<User> {
  const user = adultUser(n, overrides);
  await insertUser(db, user);
  return user;
}

async function addChild(db: Database, n: number, parentId: string, scopes: Section[]): Promise<User> {
  const user = childUser(n, parentId);
  await db.transaction((tx) =>
    insertChildAccount(tx, { user, username: `kid.${n}` as ChildUsername, secretHash: 'opaque-hash', secretKind: 'pin', scopes }),
  );
  return user;
}

/** What `recipientsAfter` gives for an adult with `user`'s contact data and these settings. */
function adultRecipient(user: User, settings: Partial<Recipient> = {}): Recipient {
  return {
    userId: user.id,
    accountType: 'adult',
    preferences: { ...DEFAULT_PREFERENCES },
    email: user.email,
    phone: user.phone,
    emailHardBounced: false,
    pushTokens: [],
    ...settings,
  };
}

/**
 * Registers the contract suite of the stores that decide who hears of an announcement
 * (`shared/notifications`: preferences, push tokens, SMS opt-outs, e-mail hard bounces and the
 * recipient queries) for one engine.
 * @param name the engine, shown in the suite's title.
 * @param factory the suite's database.
 */
export function describeNotificationAudienceContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Notification audience stores contract: ${name}`, () => {
    const database = migratedDatabasePerSuite(factory);

    it('reads the default preferences until a change, then each change merged into the stored ones', async () => {
      const db = database();
      const [one, two] = [await addAdult(db, 1), await addAdult(db, 2)];
      expect(await readPreferences(db, one.id)).toEqual({ push: true, sms: true, email: true });
      expect(await db.transaction((tx) => updatePreferences(tx, one.id, { sms: false }, NOW))).toEqual({ push: true, sms: false, email: true });
      expect(await db.transaction((tx) => updatePreferences(tx, one.id, { push: false, email: false }, NOW))).toEqual({
        push: false,
        sms: false,
        email: false,
      });
      expect(await db.transaction((tx) => updatePreferences(tx, one.id, { email: true }, NOW))).toEqual({ push: false, sms: false, email: true });
      expect(await readPreferences(db, one.id)).toEqual({ push: false, sms: false, email: true });
      expect(await readPreferences(db, two.id)).toEqual({ push: true, sms: true, email: true });
    });

    it('merges racing changes of different channels: neither change is lost', async () => {
      const db = database();
      const user = await addAdult(db, 1);
      // The function promises read, merge and write as one unit in the caller's transaction.
      await Promise.all([
        db.transaction((tx) => updatePreferences(tx, user.id, { push: false }, NOW)),
        db.transaction((tx) => updatePreferences(tx, user.id, { email: false }, NOW)),
      ]);
      expect(await readPreferences(db, user.id)).toEqual({ push: false, sms: true, email: false });
      await Promise.all([
        db.transaction((tx) => updatePreferences(tx, user.id, { push: true }, NOW)),
        db.transaction((tx) => updatePreferences(tx, user.id, { sms: false }, NOW)),
      ]);
      expect(await readPreferences(db, user.id)).toEqual({ push: true, sms: false, email: false });
    });

    it('keeps push tokens that differ only in case apart', async () => {
      const db = database();
      const [one, two] = [await addAdult(db, 1), await addAdult(db, 2)];
      expect(await register(db, one.id, token('AbC-1'))).toEqual({ registered: true, movedFromUserId: null });
      expect(await register(db, two.id, token('abc-1'))).toEqual({ registered: true, movedFromUserId: null });
      expect([await countPushTokens(db, one.id), await countPushTokens(db, two.id)]).toEqual([1, 1]);
      expect(await removePushToken(db, one.id, token('ABC-1'))).toBe(false);
      expect(await removePushToken(db, two.id, token('AbC-1'))).toBe(false);
      expect(await removePushToken(db, one.id, token('AbC-1'))).toBe(true);
      expect(await pushTokensInRange(db, FIRST_USER_ID, two.id)).toEqual(new Map([[two.id, [token('abc-1')]]]));
    });

    it('moves a token to the user who registers it, and trims each user to the most recent devices', async () => {
      const db = database();
      const [one, two] = [await addAdult(db, 1), await addAdult(db, 2)];
      await register(db, one.id, token('shared'));
      expect(await register(db, two.id, token('shared'), isoAfter(NOW, 1))).toEqual({ registered: true, movedFromUserId: one.id });
      expect(await register(db, two.id, token('shared'), isoAfter(NOW, 2))).toEqual({ registered: true, movedFromUserId: null });
      expect([await countPushTokens(db, one.id), await countPushTokens(db, two.id)]).toEqual([0, 1]);

      const labels = Array.from({ length: MAX_DEVICES_PER_USER + 1 }, (_, n) => `device-${n}`);
      for (const [n, label] of labels.entries()) await register(db, one.id, token(label), isoAfter(NOW, 1000 * (n + 1)));
      expect(await countPushTokens(db, one.id)).toBe(MAX_DEVICES_PER_USER);
      const devices = (await pushTokensInRange(db, FIRST_USER_ID, one.id)).get(one.id);
      expect(devices).toEqual(labels.slice(1).reverse().map(token));
    });

    it('removes a stale token only when it was not registered again after the message went', async () => {
      const db = database();
      const user = await addAdult(db, 1);
      const sentAt = isoAfter(NOW, 5000);
      await register(db, user.id, token('stale'), NOW);
      await register(db, user.id, token('back-again'), isoAfter(sentAt, 1));
      await register(db, user.id, token('exactly-then'), sentAt);
      expect(await removeStalePushToken(db, token('stale'), sentAt)).toBe(true);
      expect(await removeStalePushToken(db, token('back-again'), sentAt)).toBe(false);
      expect(await removeStalePushToken(db, token('exactly-then'), sentAt)).toBe(true);
      expect(await removeStalePushToken(db, token('never-known'), sentAt)).toBe(false);
      expect((await pushTokensInRange(db, FIRST_USER_ID, user.id)).get(user.id)).toEqual([token('back-again')]);
    });

    it('reads the devices of an id range (exclusive start, inclusive end), newest first per user', async () => {
      const db = database();
      const users = [await addAdult(db, 1), await addAdult(db, 2), await addAdult(db, 3), await addAdult(db, 4)];
      for (const [n, user] of users.entries()) {
        await register(db, user.id, token(`u${n}-old`), isoAfter(NOW, n));
        await register(db, user.id, token(`u${n}-new`), isoAfter(NOW, 100 + n));
      }
      const ids = users.map((user) => user.id);
      expect(await pushTokensInRange(db, ids[0] as string, ids[2] as string)).toEqual(
        new Map([
          [ids[1], [token('u1-new'), token('u1-old')]],
          [ids[2], [token('u2-new'), token('u2-old')]],
        ]),
      );
      expect(await pushTokensInRange(db, ids[3] as string, numberedId(99))).toEqual(new Map());
    });

    it("applies the user's SMS choice before the provider's STOP list; recording a STOP is idempotent", async () => {
      const db = database();
      const phone = '+15550123';
      const user = await addAdult(db, 1, { phone });
      expect(await smsOptOutOf(db, user.id, phone)).toBeUndefined();
      await recordProviderSmsOptOut(db, phone, NOW);
      await db.transaction(async (tx) => {
        await recordProviderSmsOptOut(tx, phone, isoAfter(NOW, 1));
        expect(await smsOptOutOf(tx, user.id, phone)).toBe('provider_stop');
      });
      expect(await smsOptOutOf(db, user.id, '+15550124')).toBeUndefined();
      await db.transaction((tx) => updatePreferences(tx, user.id, { sms: false }, NOW));
      expect(await smsOptOutOf(db, user.id, phone)).toBe('user_choice');
      await db.transaction((tx) => updatePreferences(tx, user.id, { sms: true }, NOW));
      await clearProviderSmsOptOut(db, phone, isoAfter(NOW, 2));
      expect(await smsOptOutOf(db, user.id, phone)).toBeUndefined();
    });

    it('reads the opt-outs of SMS that start together in one statement, each as the single read gives it', async () => {
      const db = database();
      const stopped = await addAdult(db, 3, { phone: '+15550131' });
      const choosing = await addAdult(db, 4, { phone: '+15550132' });
      const both = await addAdult(db, 5, { phone: '+15550133' });
      const free = await addAdult(db, 6, { phone: '+15550134' });
      await recordProviderSmsOptOut(db, '+15550131', NOW);
      await recordProviderSmsOptOut(db, '+15550133', NOW);
      await db.transaction((tx) => updatePreferences(tx, choosing.id, { sms: false }, NOW));
      await db.transaction((tx) => updatePreferences(tx, both.id, { sms: false }, NOW));
      const asked = [stopped, choosing, both, free, stopped].map((user, n) => ({ userId: user.id, phone: ['+15550131', '+15550132', '+15550133', '+15550134', '+1 555 0131'][n] as string }));
      const grouped = await smsOptOutsOf(db, db.dialect, asked);
      expect(grouped).toEqual(['provider_stop', 'user_choice', 'user_choice', undefined, 'provider_stop']);
      expect(grouped).toEqual(await Promise.all(asked.map(({ userId, phone }) => smsOptOutOf(db, userId, phone))));
      expect(await smsOptOutsOf(db, db.dialect, [])).toEqual([]);
    });

    it('keeps the later of STOP and START in force, whatever order and however often the reports are applied', async () => {
      const db = database();
      const phone = '+15550125';
      const user = await addAdult(db, 2, { phone });
      await db.transaction((tx) => clearProviderSmsOptOut(tx, phone, isoAfter(NOW, 5)));
      await recordProviderSmsOptOut(db, phone, isoAfter(NOW, 1));
      expect(await smsOptOutOf(db, user.id, phone)).toBeUndefined();
      await Promise.all([recordProviderSmsOptOut(db, phone, isoAfter(NOW, 9)), recordProviderSmsOptOut(db, phone, isoAfter(NOW, 9))]);
      await clearProviderSmsOptOut(db, phone, isoAfter(NOW, 5));
      expect(await smsOptOutOf(db, user.id, phone)).toBe('provider_stop');
      await clearProviderSmsOptOut(db, phone, isoAfter(NOW, 10));
      expect(await smsOptOutOf(db, user.id, phone)).toBeUndefined();
    });

    it('marks an address hard-bounced once, and knows it exactly', async () => {
      const db = database();
      await markEmailHardBounce(db, 'gone@example.test', 'hard_bounce', NOW);
      await db.transaction((tx) => markEmailHardBounce(tx, 'gone@example.test', 'x'.repeat(80), isoAfter(NOW, 1)));
      expect(await isEmailHardBounced(db, 'gone@example.test')).toBe(true);
      expect(await isEmailHardBounced(db, 'still.here@example.test')).toBe(false);
    });

    it('matches a hard bounce and an SMS opt-out in the canonical form of the address, on every engine', async () => {
      const db = database();
      await markEmailHardBounce(db, ' Gone.Away@Example.TEST ', 'hard_bounce', NOW);
      expect(await isEmailHardBounced(db, 'gone.away@example.test')).toBe(true);
      expect(await isEmailHardBounced(db, 'GONE.AWAY@example.test')).toBe(true);
      // A different address, even one SQL Server's default collation would take for it, is not it.
      expect(await isEmailHardBounced(db, 'ｇone.away@example.test')).toBe(false);
      expect(await db.query('SELECT email FROM EmailHardBounces')).toEqual([{ email: 'gone.away@example.test' }]);
      const user = await addAdult(db, 1, { phone: '+15550104477' });
      await recordProviderSmsOptOut(db, '+1 (555) 010-4477', NOW);
      expect(await smsOptOutOf(db, user.id, '+15550104477')).toBe('provider_stop');
    });

    it('keeps at most 10 devices when registrations of one user arrive at once', async () => {
      const db = database();
      const user = await addAdult(db, 1);
      await Promise.all(Array.from({ length: 14 }, (_, index) => register(db, user.id, token(`race-${index}`), isoAfter(NOW, index))));
      expect(await countPushTokens(db, user.id)).toBe(MAX_DEVICES_PER_USER);
    });

    it('puts stored contacts into canonical form (migration 0007), merging spellings of one address', async () => {
      const db = database();
      const user = await addAdult(db, 1, { email: ' Mia.Lund@Example.ORG', phone: '+1 555 010 4477' });
      const broken = await addAdult(db, 2, { email: 'not an address', phone: '12345' });
      const bounce = 'INSERT INTO EmailHardBounces (email, providerCode, bouncedAt) VALUES (@email, @code, @at)';
      await db.execute(bounce, { email: 'MIA.LUND@example.org', code: 'later', at: isoAfter(NOW, 5) });
      await db.execute(bounce, { email: 'mia.lund@EXAMPLE.org', code: 'first', at: NOW });
      await db.execute('INSERT INTO SmsOptOuts (phone, optedOutAt) VALUES (@phone, @at)', { phone: '+1-555-010-4477', at: NOW });
      await db.transaction((tx) => canonicalizeStoredContacts(tx));
      const contacts = await db.query<{ id: string; email: string | null; phone: string | null }>(
        'SELECT id, email, phone FROM Users WHERE id IN (@one, @two) ORDER BY id',
        { one: user.id, two: broken.id },
      );
      expect(contacts).toEqual([
        { id: user.id, email: 'mia.lund@example.org', phone: '+15550104477' },
        { id: broken.id, email: null, phone: null },
      ]);
      expect(await db.query('SELECT email, providerCode, bouncedAt FROM EmailHardBounces')).toEqual([
        { email: 'mia.lund@example.org', providerCode: 'first', bouncedAt: NOW },
      ]);
      expect(await db.query('SELECT phone FROM SmsOptOuts')).toEqual([{ phone: '+15550104477' }]);
      // Already canonical: a second run changes nothing.
      await db.transaction((tx) => canonicalizeStoredContacts(tx));
      expect(await db.query('SELECT email FROM EmailHardBounces')).toEqual([{ email: 'mia.lund@example.org' }]);
    });

    it('selects active, reachable recipients with their settings and devices, a page at a time in id order', async () => {
      const db = database();
      const mail = await addAdult(db, 1, { email: 'mail@example.test' });
      const phone = await addAdult(db, 2, { phone: '+15550101', email: 'bounced@example.test' });
      const pushOnly = await addAdult(db, 3);
      await addAdult(db, 4); // nothing to reach them on
      await addAdult(db, 5, { email: 'pending@example.test', status: 'pending_approval' });
      await addAdult(db, 6, { email: 'disabled@example.test', status: 'disabled' });
      const reader = await addChild(db, 7, mail.id, ['events', 'announcements']);
      const noScope = await addChild(db, 8, mail.id, ['events']);
      const deleted = await addChild(db, 9, mail.id, ['announcements']);
      const pushOff = await addAdult(db, 10, { email: 'quiet@example.test' });
      for (const [user, label] of [[pushOnly, 'p3'], [reader, 'c7'], [noScope, 'c8'], [deleted, 'c9'], [pushOff, 'p10']] as const) {
        await register(db, user.id, token(label));
      }
      await register(db, pushOnly.id, token('p3-newer'), isoAfter(NOW, 1));
      await markChildDeleted(db, deleted.id, NOW);
      await markEmailHardBounce(db, 'bounced@example.test', 'hard_bounce', NOW);
      await db.transaction((tx) => updatePreferences(tx, pushOff.id, { push: false, sms: false }, NOW));

      const expected: Recipient[] = [
        adultRecipient(mail),
        adultRecipient(phone, { emailHardBounced: true }),
        adultRecipient(pushOnly, { pushTokens: [token('p3-newer'), token('p3')] }),
        { ...adultRecipient(reader), accountType: 'child', email: null, phone: null, pushTokens: [token('c7')] },
        adultRecipient(pushOff, { preferences: { push: false, sms: false, email: true }, pushTokens: [token('p10')] }),
      ];
      expect(await recipientsAfter(db, ALL, FIRST_USER_ID, 100)).toEqual(expected);
      expect(await countRecipients(db, ALL)).toBe(5);
      expect((await recipientsAfter(db, ['email'], FIRST_USER_ID, 100)).map((r) => r.userId)).toEqual([mail.id, pushOff.id]);
      expect((await recipientsAfter(db, ['push'], FIRST_USER_ID, 100)).map((r) => r.userId)).toEqual([pushOnly.id, reader.id]);
      expect(await countRecipients(db, ['sms'])).toBe(1);

      const firstIds = await recipientIdsAfter(db, ALL, FIRST_USER_ID, 2);
      expect(firstIds).toEqual([mail.id, phone.id]);
      expect(await recipientIdsAfter(db, ALL, firstIds[1] as string, 2)).toEqual([pushOnly.id, reader.id]);
      expect(await recipientIdsAfter(db, ALL, reader.id, 2)).toEqual([pushOff.id]);
      expect(await recipientsAfter(db, ALL, mail.id, 2)).toEqual(expected.slice(1, 3));

      // A contact change shows in the next page read.
      await updateAdultContact(db, pushOnly.id, { email: 'now.reachable@example.test', phone: null }, NOW);
      expect((await recipientsAfter(db, ['email'], FIRST_USER_ID, 100)).map((r) => r.userId)).toEqual([mail.id, pushOnly.id, pushOff.id]);
    });

    it('reads every recipient of a batch range, a page at a time, and nobody outside it', async () => {
      const db = database();
      const users: User[] = [];
      for (let n = 1; n <= 7; n += 1) users.push(await addAdult(db, n, { email: `user${n}@example.test` }));
      const ids = users.map((user) => user.id);
      const batch = { afterUserId: ids[0] as string, throughUserId: ids[5] as string, size: 2 };
      expect((await recipientsOfBatch(db, ['email'], batch)).map((r) => r.userId)).toEqual(ids.slice(1, 6));
      expect((await recipientsAfter(db, ['email'], ids[0] as string, 10, ids[2])).map((r) => r.userId)).toEqual(ids.slice(1, 3));
      // A batch from an older message has no end: its size is all it takes.
      const open = await recipientsOfBatch(db, ['email'], { afterUserId: ids[4] as string, size: 5 });
      expect(open.map((r) => r.userId)).toEqual(ids.slice(5));
    });
  });
}
