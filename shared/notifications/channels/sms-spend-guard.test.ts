import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migratedMemoryDatabase } from '../../../test/notifications/notification-fixtures';
import type { Database } from '../../db/database';
import { manualClock } from '../../ports/clock';
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

async function messages(month: string): Promise<number> {
  const [row] = await db.query<{ messages: number | string }>('SELECT messages FROM SmsMonthlySpend WHERE month = @month', { month });
  return row ? Number(row.messages) : 0;
}

async function reserveMany(count: number, now: Date, segments = 1): Promise<SmsReservation[]> {
  const results: SmsReservation[] = [];
  for (let n = 0; n < count; n += 1) results.push(await reserveSms(db, SETTINGS, now, segments));
  return results;
}

describe('the SMS spend guard', () => {
  it('warns once, on the reservation that reaches 80 % of the cap', async () => {
    const results = await reserveMany(10, new Date('2031-05-10T08:00:00Z'));
    expect(results.every((result) => result.ok)).toBe(true);
    const warnings = results.map((result, index) => (result.ok && result.warning ? index + 1 : undefined)).filter(Boolean);
    expect(warnings).toEqual([8]);
    expect(results[7]).toEqual({ ok: true, month: '2031-05', costMicroUsd: 30_000, warning: { spentUsd: 0.24, capUsd: 0.3 } });
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
    expect((await reserveSms(db, SETTINGS, clock.now(), 1)).ok).toBe(false);
    clock.advance(1000);
    expect(spendMonth(clock.now())).toBe('2031-06');
    const june = await reserveMany(8, clock.now());
    expect(june.every((result) => result.ok)).toBe(true);
    expect(june[7]).toMatchObject({ ok: true, month: '2031-06', warning: { spentUsd: 0.24 } });
    expect(await spentUsd(db, '2031-05')).toBeCloseTo(0.3, 10);
  });

  it('never lets racing reservations overspend the cap', async () => {
    const now = new Date('2031-05-10T08:00:00Z');
    const results = await Promise.all(Array.from({ length: 25 }, () => reserveSms(db, SETTINGS, now, 1)));
    expect(results.filter((result) => result.ok)).toHaveLength(10);
    expect(results.filter((result) => !result.ok && result.capReached)).toHaveLength(1);
    expect(results.filter((result) => result.ok && result.warning)).toHaveLength(1);
  });

  it('gives a reservation back for an SMS the provider did not take', async () => {
    const now = new Date('2031-05-10T08:00:00Z');
    await reserveMany(10, now);
    await refundSms(db, { month: '2031-05', costMicroUsd: 30_000 }, now);
    expect(await spentUsd(db, '2031-05')).toBeCloseTo(0.27, 10);
    expect((await reserveSms(db, SETTINGS, now, 1)).ok).toBe(true);
    expect((await reserveSms(db, SETTINGS, now, 1)).ok).toBe(false);
  });

  it('sends nothing with a cap of zero', async () => {
    expect(await reserveSms(db, { monthlyCapUsd: 0, unitCostUsd: 0.0075 }, new Date('2031-05-10T08:00:00Z'), 1)).toMatchObject({
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
    expect(await reserveSms(db, settings, now, 1)).toEqual({ ok: true, month: '2031-05', costMicroUsd: 7500 });
    expect((await reserveSms(db, settings, now, 1)).ok).toBe(false);
  });
  it('reserves segments × the unit cost, exactly (3 segments of 0.0075 USD = 22 500 millionths)', async () => {
    const now = new Date('2031-05-10T08:00:00Z');
    const reservation = await reserveSms(db, { monthlyCapUsd: 30, unitCostUsd: 0.0075 }, now, 3);
    expect(reservation).toEqual({ ok: true, month: '2031-05', costMicroUsd: 22_500 });
    expect(await spentUsd(db, '2031-05')).toBe(0.0225);
    expect(await messages('2031-05')).toBe(1);
  });

  it('refuses a message whose segments would cross the cap, reserving none of it, while a shorter one still fits', async () => {
    const now = new Date('2031-05-10T08:00:00Z');
    await reserveMany(7, now);
    const [crossing] = await reserveMany(1, now, 4);
    expect(crossing).toEqual({ ok: false, month: '2031-05', capReached: { spentUsd: 0.21, capUsd: 0.3 } });
    expect(await spentUsd(db, '2031-05')).toBe(0.21);
    expect(await messages('2031-05')).toBe(7);
    expect(await reserveSms(db, SETTINGS, now, 1)).toEqual({
      ok: true,
      month: '2031-05',
      costMicroUsd: 30_000,
      warning: { spentUsd: 0.24, capUsd: 0.3 },
    });
    expect(await reserveSms(db, SETTINGS, now, 2)).toEqual({ ok: true, month: '2031-05', costMicroUsd: 60_000 });
    expect(await reserveSms(db, SETTINGS, now, 1)).toEqual({ ok: false, month: '2031-05' });
    expect(await spentUsd(db, '2031-05')).toBe(0.3);
  });

  it('fills the cap exactly with a message of the segments left', async () => {
    const now = new Date('2031-05-10T08:00:00Z');
    await reserveMany(1, now, 7);
    expect(await reserveSms(db, SETTINGS, now, 3)).toMatchObject({ ok: true, costMicroUsd: 90_000 });
    expect(await spentUsd(db, '2031-05')).toBe(0.3);
  });

  it('refunds exactly the cost of the reservation, and one message', async () => {
    const now = new Date('2031-05-10T08:00:00Z');
    await reserveMany(2, now, 1);
    const reservation = await reserveSms(db, SETTINGS, now, 3);
    if (!reservation.ok) throw new Error('expected a reservation');
    expect(reservation.costMicroUsd).toBe(90_000);
    await refundSms(db, reservation, now);
    expect(await spentUsd(db, '2031-05')).toBe(0.06);
    expect(await messages('2031-05')).toBe(2);
  });

  it('never lets racing multi-segment reservations overspend the cap', async () => {
    const now = new Date('2031-05-10T08:00:00Z');
    const results = await Promise.all(Array.from({ length: 10 }, (_, n) => reserveSms(db, SETTINGS, now, n % 2 === 0 ? 3 : 2)));
    const reserved = results.reduce((sum, result) => sum + (result.ok ? result.costMicroUsd : 0), 0);
    expect(reserved).toBeLessThanOrEqual(300_000);
    expect(await spentUsd(db, '2031-05')).toBe(reserved / 1_000_000);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects %s segments as a bug', async (segments) => {
    const now = new Date('2031-05-10T08:00:00Z');
    await expect(reserveSms(db, SETTINGS, now, segments)).rejects.toThrow(/segments must be a positive integer/);
    expect(await spentUsd(db, '2031-05')).toBe(0);
  });

  it('rejects a refund of a negative or fractional cost as a bug', async () => {
    const now = new Date('2031-05-10T08:00:00Z');
    await expect(refundSms(db, { month: '2031-05', costMicroUsd: -1 }, now)).rejects.toThrow(/costMicroUsd/);
    await expect(refundSms(db, { month: '2031-05', costMicroUsd: 0.5 }, now)).rejects.toThrow(/costMicroUsd/);
  });
});
