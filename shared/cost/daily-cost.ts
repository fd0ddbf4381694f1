/**
 * The two daily cost checks of the service spec (section 8), as one computation over a short daily
 * cost series:
 * - "Cost anomaly": a day's cost against the average of the 7 days before it (the warning alert
 *   `cost-anomaly` fires above 130 %);
 * - "Cost (daily and monthly)", daily half: a day's cost against the expected daily baseline, the
 *   expected monthly cost spread over the year's days (the alert `daily-cost-above-baseline` fires
 *   above 115 %).
 * The thresholds stay in the alert catalogue (`infra/alerts/warning.json`); this only measures.
 */

/** Days before the assessed day that form its baseline ("7-day rolling average"). */
export const TRAILING_DAYS = 7;

/**
 * Fewest days with cost data among the trailing 7 for an average to mean something. A missing day
 * is data Cost Management has not published (this app's resources cost something every day), so it
 * is left out of the average rather than counted as zero, which would fake a spike.
 */
export const MINIMUM_TRAILING_DAYS = 5;

/** One UTC day's cost, in the billing currency. */
export interface DailyCost {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  cost: number;
}

export type DailyCostStatus = 'assessed' | 'no_data' | 'insufficient_baseline';

/** What the `cost.daily` event reports about one day. */
export interface DailyCostAssessment {
  day: string;
  /** `no_data`: nothing for the day itself; `insufficient_baseline`: fewer than 5 of the 7 days before it. */
  status: DailyCostStatus;
  /** The day's cost, rounded to cents; null without data. */
  cost: number | null;
  /** Average of the trailing days that have data, rounded to cents; null when there are none. */
  trailingAverage: number | null;
  /** Trailing days with data (0 to 7). */
  trailingDays: number;
  /** The day's cost as a percentage of the trailing average (one decimal); null unless assessed. */
  percentOfTrailingAverage: number | null;
  /** The expected monthly cost spread over the year: monthly × 12 / 365, rounded to cents. */
  expectedDaily: number;
  /** The day's cost as a percentage of the expected daily cost (one decimal); null without data. */
  percentOfExpected: number | null;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** `YYYY-MM-DD` of the UTC day `offset` days from `day`. */
export function addDays(day: string, offset: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + offset * DAY_MS).toISOString().slice(0, 10);
}

/** The last whole UTC day before `now`: today's cost is still being collected. */
export function lastWholeDay(now: Date): string {
  return addDays(now.toISOString().slice(0, 10), -1);
}

const cents = (value: number): number => Math.round(value * 100) / 100;
const percent = (part: number, whole: number): number | null => (whole > 0 ? Math.round((1000 * part) / whole) / 10 : null);

/**
 * Assesses `day` against the 7 days before it and against the expected daily cost. Rows of the
 * same day are added up (Cost Management may split a day by currency or meter); rows outside the
 * 8 days are ignored.
 * @param series daily costs, in any order, possibly with days missing.
 * @param expectedMonthly the expected monthly cost (the budget's amount).
 */
export function assessDailyCost(series: readonly DailyCost[], day: string, expectedMonthly: number): DailyCostAssessment {
  const byDay = new Map<string, number>();
  for (const row of series) {
    if (!Number.isFinite(row.cost)) continue;
    byDay.set(row.day, (byDay.get(row.day) ?? 0) + row.cost);
  }
  const trailing = Array.from({ length: TRAILING_DAYS }, (_, index) => byDay.get(addDays(day, -1 - index))).filter(
    (cost): cost is number => cost !== undefined,
  );
  const trailingAverage = trailing.length > 0 ? trailing.reduce((sum, cost) => sum + cost, 0) / trailing.length : null;
  const expectedDaily = cents((expectedMonthly * 12) / 365);
  const cost = byDay.get(day);
  const status: DailyCostStatus =
    cost === undefined ? 'no_data' : trailing.length < MINIMUM_TRAILING_DAYS ? 'insufficient_baseline' : 'assessed';
  return {
    day,
    status,
    cost: cost === undefined ? null : cents(cost),
    trailingAverage: trailingAverage === null ? null : cents(trailingAverage),
    trailingDays: trailing.length,
    percentOfTrailingAverage: status === 'assessed' && trailingAverage !== null ? percent(cost ?? 0, trailingAverage) : null,
    expectedDaily,
    percentOfExpected: cost === undefined ? null : percent(cost, expectedDaily),
  };
}
