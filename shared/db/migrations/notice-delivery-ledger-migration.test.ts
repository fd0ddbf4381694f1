import { afterEach, describe, expect, it } from 'vitest';
import { insertAccountNotice } from '../../messages/account-notice-store';
import { insertUser } from '../../users/user-store';
import { adultUser, childUser, numberedId } from '../../../test/contract/store-fixtures';
import { sqliteMigrationUnderTest, type MigrationUnderTest } from '../../../test/helpers/sqlite-migration-kit';

const NOW = '2031-06-01T08:00:00.000Z';
const LEASE = '2031-06-01T08:01:00.000Z';
let underTest: MigrationUnderTest | undefined;

afterEach(async () => {
  await underTest?.dispose();
});

const COLUMNS = 'noticeId, channel, result, attempts, providerCode, providerMessageId, claimedUntil, createdAt, updatedAt';

describe('migration 0019-notice-delivery-ledger (SQLite)', () => {
  it("gives existing rows their notice's recipient and no first send, keeps every other column, holds the references, and goes back", async () => {
    underTest = await sqliteMigrationUnderTest('0019-notice-delivery-ledger');
    const { db: opened, migration } = underTest;
    const { up, down } = migration;
    await opened.transaction((tx) => down(tx));

    const parent = adultUser(1, { email: 'parent@example.test' });
    const child = childUser(2, parent.id);
    await insertUser(opened, parent);
    await insertUser(opened, child);
    const noticeId = numberedId(3, 'a');
    await insertAccountNotice(opened, { id: noticeId, kind: 'child_locked', recipientUserId: parent.id, subjectUserId: child.id, eventAt: NOW, createdAt: NOW });
    // Rows as the notices' own ledger wrote them before: a finished push, an e-mail under its lease.
    await opened.execute(
      `INSERT INTO AccountNoticeDeliveries (${COLUMNS}) VALUES
         (@noticeId, 'push', 'success', 1, NULL, 'ticket-1', NULL, @now, @now),
         (@noticeId, 'email', 'pending', 2, 'http_503', 'op-1', @lease, @now, @now)`,
      { noticeId, now: NOW, lease: LEASE },
    );
    const before = await opened.query(`SELECT ${COLUMNS} FROM AccountNoticeDeliveries ORDER BY channel`);

    await opened.transaction((tx) => up(tx));
    expect(await opened.query(`SELECT ${COLUMNS} FROM AccountNoticeDeliveries ORDER BY channel`)).toEqual(before);
    expect(await opened.query('SELECT channel, userId, firstSentAt FROM AccountNoticeDeliveries ORDER BY channel')).toEqual([
      { channel: 'email', userId: parent.id, firstSentAt: null },
      { channel: 'push', userId: parent.id, firstSentAt: null },
    ]);
    expect(await opened.query('PRAGMA foreign_key_check')).toEqual([]);
    // A row names a recipient who exists, once per notice and channel.
    const insert = (userId: string | null, channel: string) =>
      opened.execute(
        `INSERT INTO AccountNoticeDeliveries (noticeId, userId, channel, result, attempts, createdAt, updatedAt)
         VALUES (@noticeId, @userId, @channel, 'pending', 1, @now, @now)`,
        { noticeId, userId, channel, now: NOW },
      );
    await expect(insert(null, 'push')).rejects.toThrow();
    await expect(insert(numberedId(99), 'push')).rejects.toThrow();
    await expect(insert(parent.id, 'push')).rejects.toThrow();

    await opened.transaction((tx) => down(tx));
    expect(await opened.query(`SELECT ${COLUMNS} FROM AccountNoticeDeliveries ORDER BY channel`)).toEqual(before);
    const columns = (await opened.query<{ name: string }>("SELECT name FROM pragma_table_info('AccountNoticeDeliveries')")).map((row) => row.name);
    expect(columns).toEqual(COLUMNS.split(', '));
    await opened.transaction((tx) => up(tx));
    expect(await opened.query('SELECT COUNT(*) AS n FROM AccountNoticeDeliveries WHERE userId = @userId', { userId: parent.id })).toEqual([{ n: 2 }]);
  });
});
