import type { SqlExecutor } from '../db/database';
import { UniqueViolationError } from '../db/database-errors';

/**
 * The SMS spend guard (contract section 10): a counter per UTC month in the database, shared by
 * every instance. Each SMS reserves its unit cost before it is sent, with one conditional
 * statement (`spent + unit <= cap`), so instances racing at the cap cannot overspend it; a message
 * the provider did not accept gives its reservation back. Amounts are whole millionths of a dollar,
 * so repeated additions do not drift.
 */

export interface SmsSpendSettings {
  monthlyCapUsd: number;
  unitCostUsd: number;
}

/** The share of the cap at which the one warning of the month is logged. */
export const SPEND_WARNING_SHARE = 0.8;

export type SmsReservation =
  /** Reserved. `warning` is set on the one reservation of the month that first crossed 80 %. */
  | { ok: true; month: string; warning?: SpendLevel }
  /** Past the cap. `capReached` is set the first time this month (for its one warn line). */
  | { ok: false; month: string; capReached?: SpendLevel };

export interface SpendLevel {
  spentUsd: number;
  capUsd: number;
}

const MICRO = 1_000_000;

/** `YYYY-MM` of `instant` in UTC: the spend guard's month. */
export function spendMonth(instant: Date): string {
  return instant.toISOString().slice(0, 7);
}

/** Reserves the cost of one SMS in the month of `now`, if the cap allows it. */
export async function reserveSms(db: SqlExecutor, settings: SmsSpendSettings, now: Date): Promise<SmsReservation> {
  const month = spendMonth(now);
  const at = now.toISOString();
  const unit = toMicros(settings.unitCostUsd);
  const cap = toMicros(settings.monthlyCapUsd);
  const reserve = () =>
    db.execute(
      `UPDATE SmsMonthlySpend SET spentMicroUsd = spentMicroUsd + @unit, messages = messages + 1, updatedAt = @at
       WHERE month = @month AND spentMicroUsd + @unit <= @cap`,
      { month, unit, cap, at },
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
  return warned === 1 ? { ok: true, month, warning: await spendLevel(db, month, cap) } : { ok: true, month };
}

/** Gives back the reservation of an SMS the provider did not accept. */
export async function refundSms(db: SqlExecutor, settings: SmsSpendSettings, month: string, now: Date): Promise<void> {
  await db.execute(
    `UPDATE SmsMonthlySpend SET spentMicroUsd = spentMicroUsd - @unit, messages = messages - 1, updatedAt = @at
     WHERE month = @month AND spentMicroUsd >= @unit AND messages >= 1`,
    { month, unit: toMicros(settings.unitCostUsd), at: now.toISOString() },
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
