import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addAdult, addChild, migratedMemoryDatabase } from '../../../test/notifications/notification-fixtures';
import type { Database } from '../../db/database';
import { markEmailHardBounce } from '../channels/email-hard-bounces';
import { updatePreferences } from '../../users/notification-preferences';
import { registerPushToken } from '../../users/push-tokens';
import { channelsFor, countRecipients, FIRST_USER_ID, recipientIdsAfter, recipientsAfter, type Recipient } from './recipients';

const NOW = '2031-05-10T08:00:00.000Z';
const ALL = ['push', 'sms', 'email'] as const;

let db: Database;

beforeEach(async () => {
  db = await migratedMemoryDatabase();
});

afterEach(async () => {
  await db.close();
});

async function device(userId: string, n: number): Promise<string> {
  const token = `ExponentPushToken[r-${userId.slice(-4)}-${n}]`;
  await db.transaction((tx) => registerPushToken(tx, userId, token, NOW));
  return token;
}

async function everyone(channels: readonly ('push' | 'sms' | 'email')[]): Promise<Recipient[]> {
  return recipientsAfter(db, channels, FIRST_USER_ID, 1000);
}

describe('recipient selection', () => {
  it('takes active adults reachable on a channel of the announcement', async () => {
    const mail = await addAdult(db, { email: 'mail@example.test' });
    const phone = await addAdult(db, { phone: '+15550101' });
    const pushOnly = await addAdult(db);
    await device(pushOnly.id, 1);
    await addAdult(db); // nothing to reach them on
    await addAdult(db, { email: 'pending@example.test', status: 'pending_approval' });
    await addAdult(db, { email: 'disabled@example.test', status: 'disabled' });

    expect((await everyone(ALL)).map((r) => r.userId)).toEqual([mail.id, phone.id, pushOnly.id]);
    expect((await everyone(['email'])).map((r) => r.userId)).toEqual([mail.id]);
    expect((await everyone(['sms'])).map((r) => r.userId)).toEqual([phone.id]);
    expect((await everyone(['push'])).map((r) => r.userId)).toEqual([pushOnly.id]);
    expect(await countRecipients(db, ALL)).toBe(3);
  });

  it('takes children by push only, and only with the announcements section open', async () => {
    const parent = await addAdult(db, { email: 'parent@example.test' });
    const reader = await addChild(db, parent.id, ['announcements', 'events']);
    const other = await addChild(db, parent.id, ['events']);
    await addChild(db, parent.id, ['announcements']); // no device: nothing to reach
    await device(reader.id, 1);
    await device(other.id, 1);

    const recipients = await everyone(ALL);
    expect(recipients.map((r) => r.userId)).toEqual([parent.id, reader.id]);
    expect(recipients[1]).toMatchObject({ accountType: 'child', email: null, phone: null });
    expect(channelsFor(recipients[1] as Recipient, ALL)).toEqual(['push']);
    expect((await everyone(['email', 'sms'])).map((r) => r.userId)).toEqual([parent.id]);

    await db.execute("UPDATE ChildAccounts SET deletedAt = @now WHERE userId = @id", { now: NOW, id: reader.id });
    expect((await everyone(['push'])).map((r) => r.userId)).toEqual([]);
  });

  it('leaves out switched-off channels and hard-bounced addresses, but keeps an SMS opt-out for its record', async () => {
    const noMail = await addAdult(db, { email: 'off@example.test' });
    await db.transaction((tx) => updatePreferences(tx, noMail.id, { email: false }, NOW));
    await addAdult(db, { email: 'bounced@example.test' });
    await markEmailHardBounce(db, 'bounced@example.test', 'hard_bounce', NOW);
    const noSms = await addAdult(db, { phone: '+15550102' });
    await db.transaction((tx) => updatePreferences(tx, noSms.id, { sms: false }, NOW));
    const noPush = await addAdult(db);
    await device(noPush.id, 1);
    await db.transaction((tx) => updatePreferences(tx, noPush.id, { push: false }, NOW));

    const recipients = await everyone(ALL);
    expect(recipients.map((r) => r.userId)).toEqual([noSms.id]);
    expect(channelsFor(recipients[0] as Recipient, ALL)).toEqual(['sms']);
    expect(recipients[0]?.preferences).toEqual({ push: true, sms: false, email: true });
  });

  it('pages by user id: the same audience in pages, each page with its devices only', async () => {
    const users = [];
    for (let n = 0; n < 7; n += 1) {
      const user = await addAdult(db, { email: `user${n}@example.test` });
      await device(user.id, 1);
      await device(user.id, 2);
      users.push(user.id);
    }
    const pages: string[][] = [];
    for (let after = FIRST_USER_ID; ; ) {
      const page = await recipientsAfter(db, ALL, after, 3);
      if (page.length === 0) break;
      expect(page.every((r) => r.pushTokens.length === 2 && r.pushTokens.every((t) => t.includes(r.userId.slice(-4))))).toBe(true);
      pages.push(page.map((r) => r.userId));
      after = page[page.length - 1]?.userId as string;
    }
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(users);
    expect(await recipientIdsAfter(db, ALL, users[2] as string, 3)).toEqual(users.slice(3, 6));
  });
});

describe('audience paging', () => {
  it('reads each page in user-id order from an index, without sorting the whole audience again', async () => {
    const statements: { sql: string; params: unknown }[] = [];
    const recording: Database = {
      ...db,
      dialect: db.dialect,
      query: async (sql, params) => {
        statements.push({ sql, params });
        return db.query(sql, params);
      },
    };
    await addAdult(db, { email: 'a@example.test' });
    await recipientIdsAfter(recording, ALL, FIRST_USER_ID, 10);
    await recipientsAfter(recording, ALL, FIRST_USER_ID, 10);
    const audience = statements.filter(({ sql }) => sql.includes('FROM Users u'));
    expect(audience).toHaveLength(2);
    for (const { sql, params } of audience) {
      const plan = await db.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params as Record<string, string | number>);
      const details = plan.map((step) => step.detail).join('\n');
      // A temporary B-tree for ORDER BY would mean every page sorts all active users: quadratic in the audience.
      expect(details).toContain('IX_Users_status_id (status=? AND id>?)');
      expect(details).not.toContain('TEMP B-TREE FOR ORDER BY');
    }
  });
});
