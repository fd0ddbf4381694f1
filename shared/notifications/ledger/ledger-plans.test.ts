import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addAdult, addPublishedAnnouncement, migratedMemoryDatabase, T0 } from '../../../test/notifications/notification-fixtures';
import type { Database, SqlExecutor, SqlParams } from '../../db/database';
import { insertAccountNotice } from '../../messages/account-notice-store';
import { claimDeliveries, finishDeliveries, type DeliveryKey } from './delivery-ledger';
import { LEASED_LEDGERS } from './leased-rows';
import { acceptedBefore, settleReportedDelivery } from './reported-deliveries';
import { markSendStarts } from './send-repeatability';
import { markStalledHandedOver } from './stalled-deliveries';

let db: Database;
let statements: { sql: string; params: SqlParams | undefined }[];

beforeEach(async () => {
  db = await migratedMemoryDatabase();
  statements = [];
});

afterEach(async () => {
  await db.close();
});

function recorded<E extends SqlExecutor>(executor: E): E {
  return {
    ...executor,
    query: async (sql: string, params?: SqlParams) => {
      statements.push({ sql, params });
      return executor.query(sql, params);
    },
    execute: async (sql: string, params?: SqlParams) => {
      statements.push({ sql, params });
      return executor.execute(sql, params);
    },
  };
}

function recording(database: Database): Database {
  return {
    ...recorded(database),
    dialect: database.dialect,
    transaction: (work, options) => database.transaction((tx) => work(recorded(tx)), options),
  };
}

const LEASE = new Date(Date.parse(T0) + 60_000).toISOString();

describe("the ledger's statements over many rows of one announcement", () => {
  it('find each row of a batch by its primary key on SQLite, so their cost does not grow with the audience', async () => {
    const author = await addAdult(db, { role: 'author' });
    const announcement = await addPublishedAnnouncement(db, author.id, { channels: ['sms', 'email'] });
    const keys: DeliveryKey[] = [];
    for (let n = 0; n < 12; n += 1) {
      const userId = (await addAdult(db)).id;
      keys.push({ announcementId: announcement.id, userId, channel: 'sms' }, { announcementId: announcement.id, userId, channel: 'email' });
    }
    await claimDeliveries(db, keys.slice(0, 4), T0, LEASE);
    const tracked = recording(db);
    // New rows, rows held elsewhere (the claim's look-up of what it did not get) and, after the lease, rows claimed again.
    await claimDeliveries(tracked, keys, T0, LEASE);
    await claimDeliveries(tracked, keys, LEASE, new Date(Date.parse(LEASE) + 60_000).toISOString());
    await markSendStarts(tracked, db.dialect, announcement.id, keys.slice(0, 6), T0);
    await markStalledHandedOver(tracked, db.dialect, announcement.id, keys.slice(6, 8), LEASE);
    await finishDeliveries(tracked, db.dialect, announcement.id, 'sms', [{ userId: keys[0]?.userId as string, result: 'accepted' }], T0);

    const overRows = statements.filter(({ sql }) => sql.includes('NotificationDeliveries') && sql.includes('json_each'));
    expect(overRows.length).toBeGreaterThanOrEqual(6);
    for (const { sql, params } of overRows) {
      const plan = await db.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params);
      const onLedger = plan.map((step) => step.detail).filter((detail) => / (NotificationDeliveries|d) /.test(`${detail} `));
      expect(onLedger.length, sql).toBeGreaterThan(0);
      // Each step a look-up by key (the full key, or the rowid found from it): a walk of the announcement's
      // rows (its index on announcementId and result, or the whole table) per statement was O(audience).
      for (const detail of onLedger) expect(detail, sql).toMatch(/^SEARCH .*(\(announcementId=\? AND userId=\? AND channel=\?\)|rowid=\?\))$/);
    }
  });
});

describe("what settles accepted rows, on every ledger", () => {
  it("finds a report's row by its provider id, and the settle timer's rows, through each ledger's partial indexes", async () => {
    const parent = await addAdult(db);
    const child = await addAdult(db);
    await insertAccountNotice(db, { id: 'notice-1', kind: 'child_locked', recipientUserId: parent.id, subjectUserId: child.id, eventAt: T0, createdAt: T0 });
    const tracked = recording(db);
    // A report no ledger knows asks each ledger in turn.
    expect(await settleReportedDelivery(tracked, { channel: 'email', providerMessageId: 'op-unknown' }, { result: 'delivered' }, T0)).toBeUndefined();
    for (const ledger of LEASED_LEDGERS) await acceptedBefore(tracked, ledger, 'email', T0, 10);

    for (const ledger of LEASED_LEDGERS) {
      const [lookUp, timer, ...more] = statements.filter(({ sql }) => sql.includes(`FROM ${ledger.table}`));
      expect(more).toEqual([]);
      const plans = await Promise.all(
        [lookUp, timer].map(async (statement) =>
          (await db.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${statement?.sql ?? ''}`, statement?.params)).map((step) => step.detail).join('; '),
        ),
      );
      expect(plans).toEqual([
        expect.stringMatching(new RegExp(`^SEARCH ${ledger.table} USING INDEX IX_${ledger.table}_channel_providerMessageId \\(channel=\\? AND providerMessageId=\\?\\)$`)),
        expect.stringMatching(new RegExp(`^SEARCH ${ledger.table} USING INDEX IX_${ledger.table}_accepted_updatedAt \\(channel=\\? AND updatedAt<\\?\\)`)),
      ]);
    }
  });
});
