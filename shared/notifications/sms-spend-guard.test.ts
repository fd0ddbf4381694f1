import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migratedMemoryDatabase } from '../../test/notifications/notification-fixtures';
import type { Database } from '../db/database';
import { manualClock } from '../ports/clock';
import { refundSms, reserveSms, spendMonth, spentUsd, type SmsReservation } from './sms-spend-guard';

/** A cap of ten SMS: 80 % is reached by the 8th. */
const SETTINGS = { monthlyCapUsd: 0.3, unitCostUsd: 0.03 };

let db: Database;

beforeEach(async () => {
  db = await migratedMemoryDatabase();
});

afterEach(async () => {
  await db.close();
});

async function reserveMany(count: number, now: Date): Promise<SmsReservation[]> {
  const results: SmsReservation[] = [];
  for (let n = 0; n < count; n += 1) results.push(await reserveSms(db, SETTINGS, now));
  return results;
}

describe('the SMS spend guard', () => {
  it('warns once, on the reservation that reaches 80 % of the cap', async () => {
    const results = await reserveMany(10, new Date('2031-05-10T08:00:00Z'));
    expect(results.every((result) => result.ok)).toBe(true);
    const warnings = results.map((result, index) => (result.ok && result.warning ? index + 1 : undefined)).filter(Boolean);
    expect(warnings).toEqual([8]);
    expect(results[7]).toEqual({ ok: true, month: '2031-05', warning: { spentUsd: 0.24, capUsd: 0.3 } });
    expect(await spentUsd(db, '2031-05')).toBeCloseTo(0.3, 10);
  });

  it('refuses past the cap, reporting the cap once per month', async () => {
    const now = new Date('2031-05-20T08:00:00Z');
    await reserveMany(10, now);
    const [first, second] = await reserveMany(2, now);
    expect(first).toEqual({ ok: false, month: '2031-05', capReached: { spentUsd: 0.3, capUsd: 0.3 } });
    expect(second).toEqual({ ok: false, month: '2031-05' });
    expect(await spentUsd(db, '2031-05')).toBeCloseTo(0.3, 10);
  });

  it('starts again in the next UTC month', async () => {
    const clock = manualClock('2031-05-31T23:59:59.000Z');
    await reserveMany(10, clock.now());
    expect((await reserveSms(db, SETTINGS, clock.now())).ok).toBe(false);
    clock.advance(1000);
    expect(spendMonth(clock.now())).toBe('2031-06');
    const june = await reserveMany(8, clock.now());
    expect(june.every((result) => result.ok)).toBe(true);
    expect(june[7]).toMatchObject({ ok: true, month: '2031-06', warning: { spentUsd: 0.24 } });
    expect(await spentUsd(db, '2031-05')).toBeCloseTo(0.3, 10);
  });

  it('never lets racing reservations overspend the cap', async () => {
    const now = new Date('2031-05-10T08:00:00Z');
    const results = await Promise.all(Array.from({ length: 25 }, () => reserveSms(db, SETTINGS, now)));
    expect(results.filter((result) => result.ok)).toHaveLength(10);
    expect(results.filter((result) => !result.ok && result.capReached)).toHaveLength(1);
    expect(results.filter((result) => result.ok && result.warning)).toHaveLength(1);
  });

  it('gives a reservation back for an SMS the provider did not take', async () => {
    const now = new Date('2031-05-10T08:00:00Z');
    await reserveMany(10, now);
    await refundSms(db, SETTINGS, '2031-05', now);
    expect(await spentUsd(db, '2031-05')).toBeCloseTo(0.27, 10);
    expect((await reserveSms(db, SETTINGS, now)).ok).toBe(true);
    expect((await reserveSms(db, SETTINGS, now)).ok).toBe(false);
  });

  it('sends nothing with a cap of zero', async () => {
    expect(await reserveSms(db, { monthlyCapUsd: 0, unitCostUsd: 0.0075 }, new Date('2031-05-10T08:00:00Z'))).toMatchObject({
      ok: false,
      capReached: { capUsd: 0 },
    });
  });

  it('counts the default unit cost without drift (4000 SMS fill the 30 USD cap exactly)', async () => {
    const settings = { monthlyCapUsd: 30, unitCostUsd: 0.0075 };
    const now = new Date('2031-05-10T08:00:00Z');
    await db.execute(
      `INSERT INTO SmsMonthlySpend (month, spentMicroUsd, messages, warnedAt, capReachedAt, updatedAt)
       VALUES ('2031-05', 29992500, 3999, '2031-05-01T00:00:00.000Z', NULL, '2031-05-01T00:00:00.000Z')`,
    );
    expect(await reserveSms(db, settings, now)).toEqual({ ok: true, month: '2031-05' });
    expect((await reserveSms(db, settings, now)).ok).toBe(false);
  });
});
