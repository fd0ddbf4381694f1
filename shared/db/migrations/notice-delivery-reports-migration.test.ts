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

const COLUMNS = 'noticeId, userId, channel, result, attempts, providerCode, providerMessageId, claimedUntil, firstSentAt, createdAt, updatedAt';
const INDEXES = "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'AccountNoticeDeliveries' AND sql IS NOT NULL ORDER BY name";

describe('migration 0022-notice-delivery-reports (SQLite)', () => {
  it('lets a notice row be `delivered`, keeps every row and column, adds the report and settle indexes, and goes back', async () => {
    underTest = await sqliteMigrationUnderTest('0022-notice-delivery-reports');
    const { db: opened, migration } = underTest;
    const { up, down } = migration;
    await opened.transaction((tx) => down(tx));

    const parent = adultUser(1, { email: 'parent@example.test' });
    await insertUser(opened, parent);
    await insertUser(opened, childUser(2, parent.id));
    const [first, second] = [numberedId(3, 'a'), numberedId(4, 'a')];
    for (const [n, id] of [first, second].entries()) {
      await insertAccountNotice(opened, { id, kind: 'child_locked', recipientUserId: parent.id, subjectUserId: numberedId(2), eventAt: `2031-06-01T0${n}:00:00.000Z`, createdAt: NOW });
    }
    // Rows as the ledger holds them before: an e-mail waiting for its report, one under its lease, a push done.
    await opened.execute(
      `INSERT INTO AccountNoticeDeliveries (${COLUMNS}) VALUES
         (@first, @userId, 'email', 'accepted', 1, NULL, 'op-1', NULL, @now, @now, @now),
         (@first, @userId, 'push', 'success', 1, NULL, 'ticket-1', NULL, NULL, @now, @now),
         (@second, @userId, 'email', 'pending', 2, 'http_503', 'op-2', @lease, @now, @now, @now)`,
      { first, second, userId: parent.id, now: NOW, lease: LEASE },
    );
    const rows = () => opened.query(`SELECT ${COLUMNS} FROM AccountNoticeDeliveries ORDER BY noticeId, channel`);
    const before = await rows();
    const deliver = () => opened.execute("UPDATE AccountNoticeDeliveries SET result = 'delivered' WHERE providerMessageId = 'op-1'");
    await expect(deliver()).rejects.toThrow(/CHECK constraint/);
    expect(await opened.query(INDEXES)).toEqual([]);

    await opened.transaction((tx) => up(tx));
    expect(await rows()).toEqual(before);
    expect(await opened.query(INDEXES)).toEqual([
      { name: 'IX_AccountNoticeDeliveries_accepted_updatedAt' },
      { name: 'IX_AccountNoticeDeliveries_channel_providerMessageId' },
    ]);
    expect(await opened.query('PRAGMA foreign_key_check')).toEqual([]);
    expect(await deliver()).toBe(1);
    // Still one row per notice and channel, for a recipient who exists.
    const insert = (userId: string, channel: string) =>
      opened.execute(
        `INSERT INTO AccountNoticeDeliveries (noticeId, userId, channel, result, attempts, createdAt, updatedAt)
         VALUES (@noticeId, @userId, @channel, 'pending', 1, @now, @now)`,
        { noticeId: first, userId, channel, now: NOW },
      );
    await expect(insert(parent.id, 'email')).rejects.toThrow();
    await expect(insert(numberedId(99), 'sms')).rejects.toThrow();

    await opened.transaction((tx) => down(tx));
    // `delivered` goes back as `success`, the nearest result there was; everything else as it was.
    expect(await rows()).toEqual(before.map((row) => ((row as { providerMessageId: string }).providerMessageId === 'op-1' ? { ...row, result: 'success' } : row)));
    expect(await opened.query(INDEXES)).toEqual([]);
    await opened.transaction((tx) => up(tx));
    expect(await opened.query('SELECT COUNT(*) AS n FROM AccountNoticeDeliveries')).toEqual([{ n: 3 }]);
  });
});
