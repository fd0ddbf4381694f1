import type { Database, Dialect, SqlExecutor } from '../../db/database';
import { UniqueViolationError } from '../../db/database-errors';
import type { SmsSpendSettings } from '../engine/fanout-deps';

/**
 * The SMS spend guard (contract section 10): a counter per UTC month in the database, shared by
 * every instance. SMS are priced per segment: `SMS_UNIT_COST_USD` is the cost of one segment (GSM-7:
 * a single SMS holds 160 characters, a concatenated one 153 per segment; UCS-2: 70, or 67 per
 * segment; see `sms-segments.ts`). Each SMS reserves `segments × unit` before it is sent, with one
 * conditional statement (`spent + cost <= cap`), so instances racing at the cap cannot overspend
 * it, and a message that would cross the cap is not reserved at all (not even in part); a message
 * the provider did not accept gives its reservation back. Amounts are whole millionths of a dollar,
 * so repeated additions do not drift.
 */

/** The share of the cap at which the one warning of the month is logged. */
export const SPEND_WARNING_SHARE = 0.8;

export type SmsReservation =
  /**
   * Reserved `costMicroUsd` millionths of a dollar in `month` (what a refund gives back). `warning`
   * is set on the one reservation of the month that first brought the spend to 80 % of the cap.
   */
  | { ok: true; month: string; costMicroUsd: number; warning?: SpendLevel }
  /**
   * Refused: the message would cross the cap; nothing was reserved. `capReached` is set on the
   * month's first refusal (for its one warn line; its `spentUsd` shows what was left of the cap).
   */
  | { ok: false; month: string; capReached?: SpendLevel };

/** What a refund gives back: the month and cost of a successful reservation. */
export interface SmsRefund {
  month: string;
  costMicroUsd: number;
}

export interface SpendLevel {
  spentUsd: number;
  capUsd: number;
}

const MICRO = 1_000_000;

/** `YYYY-MM` of `instant` in UTC: the spend guard's month. */
export function spendMonth(instant: Date): string {
  return instant.toISOString().slice(0, 7);
}

/**
 * Reserves the cost of one SMS of `segments` segments (`segments × SMS_UNIT_COST_USD`) in the UTC
 * month of `now`, if the whole cost fits under the cap; the month's message count grows by one.
 * @param segments the SMS's segment count (`smsSegments(text).segments`), a positive integer.
 * @returns on success the month and the exact cost reserved, which `refundSms` takes back.
 * @throws Error when `segments` is not a positive integer (a caller bug).
 */
export async function reserveSms(db: SqlExecutor, settings: SmsSpendSettings, now: Date, segments: number): Promise<SmsReservation> {
  if (!Number.isSafeInteger(segments) || segments < 1) {
    throw new Error(`reserveSms: segments must be a positive integer, got ${String(segments)}`);
  }
  const month = spendMonth(now);
  const at = now.toISOString();
  const cost = segments * toMicros(settings.unitCostUsd);
  if (!Number.isSafeInteger(cost)) throw new Error(`reserveSms: cost of ${segments} segments is not a safe integer`);
  const cap = toMicros(settings.monthlyCapUsd);
  const reserve = () =>
    db.execute(
      `UPDATE SmsMonthlySpend SET spentMicroUsd = spentMicroUsd + @cost, messages = messages + 1, updatedAt = @at
       WHERE month = @month AND spentMicroUsd + @cost <= @cap`,
      { month, cost, cap, at },
    );
  let reserved = await reserve();
  if (reserved === 0) {
    // The month's first SMS (here or racing elsewhere) creates its row; then the reservation decides.
    await createMonth(db, month, at);
    reserved = await reserve();
  }
  if (reserved === 0) {
    const first = await db.execute('UPDATE SmsMonthlySpend SET capReachedAt = @at WHERE month = @month AND capReachedAt IS NULL', {
      month,
      at,
    });
    return first === 1 ? { ok: false, month, capReached: await spendLevel(db, month, cap) } : { ok: false, month };
  }
  const threshold = Math.ceil(cap * SPEND_WARNING_SHARE);
  const warned = await db.execute(
    `UPDATE SmsMonthlySpend SET warnedAt = @at WHERE month = @month AND warnedAt IS NULL AND spentMicroUsd >= @threshold`,
    { month, at, threshold },
  );
  return warned === 1
    ? { ok: true, month, costMicroUsd: cost, warning: await spendLevel(db, month, cap) }
    : { ok: true, month, costMicroUsd: cost };
}

/**
 * `reserveSms` for SMS that start together (of `segments[i]` segments each), in one statement when
 * the whole group fits under the cap: the same counters as one reservation each, the 80 % warning
 * on the reservation that crossed it (the group's last), decided from the spend the statement
 * returns rather than by a second write per SMS. A group that does not fit whole is reserved one
 * SMS at a time, in order, so exactly those that still fit are reserved and the cap's first
 * refusal is flagged once, as without the group.
 * @returns each SMS's reservation, in order.
 * @throws Error when a segment count is not a positive integer (a caller bug).
 */
export async function reserveSmsGroup(
  db: Pick<Database, 'query' | 'execute' | 'dialect'>,
  settings: SmsSpendSettings,
  now: Date,
  segments: readonly number[],
): Promise<SmsReservation[]> {
  if (segments.length <= 1) return Promise.all(segments.map((count) => reserveSms(db, settings, now, count)));
  const unit = toMicros(settings.unitCostUsd);
  const costs = segments.map((count) => {
    if (!Number.isSafeInteger(count) || count < 1) throw new Error(`reserveSmsGroup: segments must be positive integers, got ${String(count)}`);
    return count * unit;
  });
  const cost = costs.reduce((sum, each) => sum + each, 0);
  if (!Number.isSafeInteger(cost)) throw new Error('reserveSmsGroup: the cost of the group is not a safe integer');
  const month = spendMonth(now);
  const at = now.toISOString();
  const cap = toMicros(settings.monthlyCapUsd);
  const set = 'SET spentMicroUsd = spentMicroUsd + @cost, messages = messages + @count, updatedAt = @at';
  const where = 'WHERE month = @month AND spentMicroUsd + @cost <= @cap';
  const statement: Record<Dialect, string> = {
    sqlite: `UPDATE SmsMonthlySpend ${set} ${where} RETURNING spentMicroUsd, warnedAt`,
    mssql: `UPDATE SmsMonthlySpend ${set} OUTPUT inserted.spentMicroUsd, inserted.warnedAt ${where}`,
  };
  const reserve = () =>
    db.query<{ spentMicroUsd: number | string; warnedAt: string | null }>(statement[db.dialect], { month, cost, count: costs.length, cap, at });
  let [spent] = await reserve();
  if (!spent) {
    await createMonth(db, month, at);
    [spent] = await reserve();
  }
  if (!spent) {
    const alone: SmsReservation[] = [];
    for (const count of segments) alone.push(await reserveSms(db, settings, now, count));
    return alone;
  }
  const reserved: SmsReservation[] = costs.map((costMicroUsd) => ({ ok: true, month, costMicroUsd }));
  if (spent.warnedAt === null && Number(spent.spentMicroUsd) >= Math.ceil(cap * SPEND_WARNING_SHARE)) {
    // Of instances crossing it together, the one whose write sets warnedAt warns.
    const warned = await db.execute('UPDATE SmsMonthlySpend SET warnedAt = @at WHERE month = @month AND warnedAt IS NULL', { month, at });
    if (warned === 1) reserved[reserved.length - 1] = { ok: true, month, costMicroUsd: costs[costs.length - 1] as number, warning: await spendLevel(db, month, cap) };
  }
  return reserved;
}

/**
 * Gives back exactly the reservation of an SMS the provider did not accept (its cost, and one
 * message), never taking the month's counters below zero.
 * @param reservation the `month` and `costMicroUsd` of the successful `reserveSms` result.
 * @throws Error when `costMicroUsd` is not a non-negative integer (a caller bug).
 */
export async function refundSms(db: SqlExecutor, reservation: SmsRefund, now: Date): Promise<void> {
  const { month, costMicroUsd: cost } = reservation;
  if (!Number.isSafeInteger(cost) || cost < 0) {
    throw new Error(`refundSms: costMicroUsd must be a non-negative integer, got ${String(cost)}`);
  }
  await db.execute(
    `UPDATE SmsMonthlySpend SET spentMicroUsd = spentMicroUsd - @cost, messages = messages - 1, updatedAt = @at
     WHERE month = @month AND spentMicroUsd >= @cost AND messages >= 1`,
    { month, cost, at: now.toISOString() },
  );
}

/** The month's spend so far, in dollars (0 for a month without SMS). */
export async function spentUsd(db: SqlExecutor, month: string): Promise<number> {
  const [row] = await db.query<{ spentMicroUsd: number | string }>('SELECT spentMicroUsd FROM SmsMonthlySpend WHERE month = @month', {
    month,
  });
  return row ? Number(row.spentMicroUsd) / MICRO : 0;
}

/** Creates the month's row unless it exists. */
async function createMonth(db: SqlExecutor, month: string, at: string): Promise<void> {
  try {
    await db.execute(
      `INSERT INTO SmsMonthlySpend (month, spentMicroUsd, messages, warnedAt, capReachedAt, updatedAt)
       VALUES (@month, 0, 0, NULL, NULL, @at)`,
      { month, at },
    );
  } catch (error) {
    if (!(error instanceof UniqueViolationError)) throw error;
  }
}

async function spendLevel(db: SqlExecutor, month: string, capMicros: number): Promise<SpendLevel> {
  return { spentUsd: await spentUsd(db, month), capUsd: capMicros / MICRO };
}

function toMicros(usd: number): number {
  return Math.round(usd * MICRO);
}
