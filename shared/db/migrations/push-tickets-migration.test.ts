import { afterEach, describe, expect, it } from 'vitest';
import { insertAnnouncement } from '../../announcements/announcement-store';
import { insertUser } from '../../users/user-store';
import { adultUser } from '../../../test/contract/store-fixtures';
import { sqliteMigrationUnderTest, type MigrationUnderTest } from '../../../test/helpers/sqlite-migration-kit';

const SENT = '2031-06-01T08:00:00.000Z';
const LATER = '2031-06-01T08:00:00.250Z';
let underTest: MigrationUnderTest | undefined;

afterEach(async () => {
  await underTest?.dispose();
});

const COLUMNS = 'ticketId, token, userId, announcementId, sentAt';

describe('migration 0021-push-tickets-in-send-order (SQLite)', () => {
  it('keys the tickets by send time then id, keeps every row, and goes back to one row per ticket id', async () => {
    underTest = await sqliteMigrationUnderTest('0021-push-tickets-in-send-order');
    const { db, migration } = underTest;
    await db.transaction((tx) => migration.down(tx));

    const user = adultUser(1);
    await insertUser(db, user);
    await insertAnnouncement(db, {
      id: 'a-1',
      authorId: user.id,
      title: 'T',
      body: 'B',
      channels: ['push'],
      status: 'published',
      rejectionReason: null,
      createdAt: SENT,
      updatedAt: SENT,
      submittedAt: SENT,
      reviewedAt: SENT,
      reviewedBy: user.id,
      publishedAt: SENT,
      publishedBy: user.id,
      fanoutEnqueuedAt: SENT,
    });
    const insert = (ticketId: string, sentAt: string) =>
      db.execute(`INSERT INTO PushTickets (${COLUMNS}) VALUES (@ticketId, 'ExponentPushToken[x]', @userId, 'a-1', @sentAt)`, { ticketId, sentAt, userId: user.id });
    await insert('f0e1', LATER);
    await insert('0a1b', SENT);
    const before = await db.query(`SELECT ${COLUMNS} FROM PushTickets ORDER BY ticketId`);

    await db.transaction((tx) => migration.up(tx));
    expect(await db.query(`SELECT ${COLUMNS} FROM PushTickets ORDER BY ticketId`)).toEqual(before);
    const key = await db.query<{ name: string; pk: number }>("SELECT name, pk FROM pragma_table_info('PushTickets') WHERE pk > 0 ORDER BY pk");
    expect(key.map((column) => column.name)).toEqual(['sentAt', 'ticketId']);
    expect(await db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'PushTickets' AND sql IS NOT NULL")).toEqual([]);
    expect(await db.query('PRAGMA foreign_key_check')).toEqual([]);
    // A ticket id again at another time is another row now; the same pair is refused.
    await insert('0a1b', LATER);
    await expect(insert('0a1b', LATER)).rejects.toThrow();

    await db.transaction((tx) => migration.down(tx));
    expect(await db.query(`SELECT ${COLUMNS} FROM PushTickets ORDER BY ticketId`)).toEqual(before);
    expect(await db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'PushTickets' AND sql IS NOT NULL")).toEqual([{ name: 'IX_PushTickets_sentAt' }]);
    await expect(insert('0a1b', LATER)).rejects.toThrow();
  });
});
