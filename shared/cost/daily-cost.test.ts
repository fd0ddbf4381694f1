import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import { createLogger } from '../logging/logger';
import { createInMemoryTelemetry } from '../telemetry/in-memory';
import { dailyCostsOfResult, type DailyCostSource } from './cost-management-source';
import { assessDailyCost, type DailyCost } from './daily-cost';
import { recordDailyCost } from './record-daily-cost';

/** The thresholds the deployed alerts compare the event's percentages with (infra/alerts/warning.json). */
const warningAlerts = (
  JSON.parse(readFileSync(path.resolve(__dirname, '../../infra/alerts/warning.json'), 'utf8')) as {
    alerts: { name: string; threshold: number; query?: string[] }[];
  }
).alerts;
const thresholdOf = (name: string): number => warningAlerts.find((alert) => alert.name === name)?.threshold ?? Number.NaN;
const ANOMALY_PERCENT = thresholdOf('cost-anomaly');
const BASELINE_PERCENT = thresholdOf('daily-cost-above-baseline');

/** Whether each alert would fire on an assessment, as its query does: the percentage above the threshold. */
function firing(series: DailyCost[], expectedMonthly = 150): { anomaly: boolean; baseline: boolean } {
  const assessment = assessDailyCost(series, '2025-03-08', expectedMonthly);
  return {
    anomaly: (assessment.percentOfTrailingAverage ?? -1) > ANOMALY_PERCENT,
    baseline: (assessment.percentOfExpected ?? -1) > BASELINE_PERCENT,
  };
}

/** Eight days, 2025-03-01 to 2025-03-08, with the given costs. */
function days(...costs: (number | undefined)[]): DailyCost[] {
  return costs.flatMap((cost, index) => (cost === undefined ? [] : [{ day: `2025-03-0${index + 1}`, cost }]));
}

describe('the daily cost checks (made-up series)', () => {
  it('reads the thresholds of the spec from the alert catalogue', () => {
    expect(ANOMALY_PERCENT).toBe(130);
    expect(BASELINE_PERCENT).toBe(115);
  });

  it('a spike fires the anomaly check', () => {
    const assessment = assessDailyCost(days(4, 4, 4, 4, 4, 4, 4, 6), '2025-03-08', 150);
    expect(assessment).toMatchObject({ status: 'assessed', cost: 6, trailingAverage: 4, trailingDays: 7, percentOfTrailingAverage: 150 });
    expect(firing(days(4, 4, 4, 4, 4, 4, 4, 6)).anomaly).toBe(true);
    // Just under 130 % does not.
    expect(firing(days(4, 4, 4, 4, 4, 4, 4, 5.2)).anomaly).toBe(false);
  });

  it('a steady rise (5 % a day) does not fire the anomaly check', () => {
    const rising = days(...Array.from({ length: 8 }, (_, index) => 4 * 1.05 ** index));
    const assessment = assessDailyCost(rising, '2025-03-08', 150);
    expect(assessment.status).toBe('assessed');
    expect(assessment.percentOfTrailingAverage).toBeGreaterThan(115);
    expect(firing(rising).anomaly).toBe(false);
  });

  it('a missing trailing day is left out of the average, not counted as zero', () => {
    const assessment = assessDailyCost(days(4, undefined, 4, 4, 4, 4, 4, 4), '2025-03-08', 150);
    expect(assessment).toMatchObject({ status: 'assessed', trailingDays: 6, trailingAverage: 4, percentOfTrailingAverage: 100 });
    expect(firing(days(4, undefined, 4, 4, 4, 4, 4, 4)).anomaly).toBe(false);
  });

  it('too few trailing days, or no data for the day itself, assess nothing (the alert stays quiet)', () => {
    const short = assessDailyCost(days(undefined, undefined, undefined, 4, 4, 4, 4, 9), '2025-03-08', 150);
    expect(short).toMatchObject({ status: 'insufficient_baseline', trailingDays: 4, percentOfTrailingAverage: null, cost: 9 });
    const missing = assessDailyCost(days(4, 4, 4, 4, 4, 4, 4, undefined), '2025-03-08', 150);
    expect(missing).toMatchObject({ status: 'no_data', cost: null, percentOfTrailingAverage: null, percentOfExpected: null });
    expect(firing(days(4, 4, 4, 4, 4, 4, 4, undefined))).toEqual({ anomaly: false, baseline: false });
  });

  it('compares the day with the expected daily cost (monthly × 12 / 365) at 115 %', () => {
    // 150 a month is 4.93 a day; 5.5 is 111.6 %, 5.8 is 117.6 %.
    expect(assessDailyCost(days(5.5), '2025-03-01', 150)).toMatchObject({ expectedDaily: 4.93, percentOfExpected: 111.6 });
    expect(firing(days(5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 5.5)).baseline).toBe(false);
    expect(firing(days(5.8, 5.8, 5.8, 5.8, 5.8, 5.8, 5.8, 5.8))).toEqual({ anomaly: false, baseline: true });
  });

  it('adds up rows of the same day and ignores days outside the series', () => {
    const assessment = assessDailyCost([...days(4, 4, 4, 4, 4, 4, 4, 3), { day: '2025-03-08', cost: 3 }, { day: '2025-02-01', cost: 500 }], '2025-03-08', 150);
    expect(assessment).toMatchObject({ cost: 6, trailingAverage: 4, percentOfTrailingAverage: 150 });
  });

  it('reads a Cost Management query result by its column names', () => {
    const result = dailyCostsOfResult(
      [{ name: 'Cost' }, { name: 'UsageDate' }, { name: 'Currency' }],
      [
        [4.5, 20250307, 'EUR'],
        [5, 20250308, 'EUR'],
        ['not a number', 20250306, 'EUR'],
      ],
    );
    expect(result).toEqual({ series: [{ day: '2025-03-07', cost: 4.5 }, { day: '2025-03-08', cost: 5 }], currency: 'EUR' });
  });
});

describe('recordDailyCost', () => {
  function setup(source: DailyCostSource | undefined) {
    const sink = new LogSink();
    const telemetry = createInMemoryTelemetry();
    const logger = createLogger({ service: 'cost', level: 'info', destination: sink });
    const clock = { now: () => new Date('2025-03-09T06:30:00Z') };
    return { sink, telemetry, run: () => recordDailyCost({ source, expectedMonthly: 150, clock, telemetry, logger }) };
  }

  it('reads the last 8 whole days and sends one cost.daily event for yesterday', async () => {
    const reads: [string, string][] = [];
    const { telemetry, sink, run } = setup({
      async readDailyCosts(from, to) {
        reads.push([from, to]);
        return { series: days(4, 4, 4, 4, 4, 4, 4, 6), currency: 'USD' };
      },
    });
    await run();
    expect(reads).toEqual([['2025-03-01', '2025-03-08']]);
    expect(telemetry.itemsOf('event', 'cost.daily').map((item) => item.properties)).toEqual([
      {
        day: '2025-03-08',
        status: 'assessed',
        cost: 6,
        currency: 'USD',
        trailingAverage: 4,
        trailingDays: 7,
        percentOfTrailingAverage: 150,
        expectedDaily: 4.93,
        percentOfExpected: 121.7,
      },
    ]);
    expect(sink.lines.filter((line) => line.message === 'daily cost assessed')).toHaveLength(1);
  });

  it('sends empty values, not zeros, for what it could not compute', async () => {
    const { telemetry, run } = setup({ readDailyCosts: async () => ({ series: [], currency: null }) });
    await run();
    expect(telemetry.itemsOf('event', 'cost.daily')[0]?.properties).toMatchObject({
      status: 'no_data',
      cost: '',
      percentOfTrailingAverage: '',
      percentOfExpected: '',
    });
  });

  it('says so and reads nothing when no scope is configured', async () => {
    const { telemetry, sink, run } = setup(undefined);
    expect(await run()).toBeUndefined();
    expect(telemetry.items).toEqual([]);
    expect(sink.lines.map((line) => [line.level, line.message])).toEqual([['warn', 'daily cost check not configured (COST_SCOPE is empty)']]);
  });
});
