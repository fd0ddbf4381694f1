import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALERTS_DIR, loadAlertFiles, loadAlerts, type AlertEntry } from './alert-catalogue';
import { specAlertRows } from './spec-tables';

/**
 * Every alert and threshold of the service spec's section 8 is in infra/alerts/ with the numbers the
 * spec gives. The rows come from the spec's tables as infra/alerts/spec-rows.md states them; the
 * expected numbers are the spec's words read as an alert rule (5% → threshold 5, a 5-minute window → PT5M, ...).
 */
interface Expected {
  alert: string;
  operator: string;
  threshold: number | 'dynamic';
  window: string;
  /** Consecutive periods, for "for 2 consecutive minutes". */
  failingPeriods?: { numberOfEvaluationPeriods: number; minFailingPeriodsToAlert: number };
  thresholdPercentOf?: string;
  baselineWindow?: string;
  thresholdTypes?: string[];
}

const EXPECTED: Record<string, Expected[]> = {
  'critical/API error rate critical': [{ alert: 'api-error-rate-critical', operator: 'GreaterThan', threshold: 5, window: 'PT5M' }],
  'critical/Container unhealthy': [
    { alert: 'container-health-probe-failing', operator: 'GreaterThan', threshold: 2, window: 'PT5M' },
    { alert: 'container-replicas-zero', operator: 'LessThan', threshold: 1, window: 'PT5M' },
  ],
  'critical/Database unreachable': [
    {
      alert: 'database-unreachable',
      operator: 'LessThan',
      threshold: 100,
      window: 'PT1M',
      failingPeriods: { numberOfEvaluationPeriods: 2, minFailingPeriodsToAlert: 2 },
    },
  ],
  'critical/Identity provider unavailable': [{ alert: 'identity-provider-unavailable', operator: 'GreaterThan', threshold: 0, window: 'PT5M' }],
  'critical/Auth failure spike': [{ alert: 'auth-failure-spike', operator: 'GreaterThan', threshold: 20, window: 'PT1M' }],
  'warning/p95 latency elevated': [{ alert: 'p95-latency-elevated', operator: 'GreaterThan', threshold: 2000, window: 'PT15M' }],
  'warning/Approval queue backlog': [{ alert: 'approval-queue-backlog', operator: 'GreaterThan', threshold: 48, window: 'PT1H' }],
  'warning/SMS failure rate elevated': [{ alert: 'sms-failure-rate-elevated', operator: 'GreaterThan', threshold: 10, window: 'PT1H' }],
  'warning/Cost anomaly': [{ alert: 'cost-anomaly', operator: 'GreaterThan', threshold: 130, window: 'P1D', baselineWindow: 'P7D' }],
  'warning/Storage nearing capacity': [
    { alert: 'database-storage-nearing-capacity', operator: 'GreaterThan', threshold: 80, window: 'PT30M' },
    { alert: 'blob-storage-nearing-capacity', operator: 'GreaterThan', threshold: 80, window: 'PT1H', thresholdPercentOf: 'coldStorageCapacityGiB' },
  ],
  'warning/Push token removal rate': [{ alert: 'push-token-removal-rate', operator: 'GreaterThan', threshold: 5, window: 'PT1H' }],
  'infrastructure/API container CPU': [{ alert: 'container-cpu-high', operator: 'GreaterThan', threshold: 80, window: 'PT15M' }],
  'infrastructure/API container memory': [{ alert: 'container-memory-high', operator: 'GreaterThan', threshold: 80, window: 'PT15M' }],
  'infrastructure/Replica count': [{ alert: 'container-replicas-zero', operator: 'LessThan', threshold: 1, window: 'PT5M' }],
  'infrastructure/Database active connections': [{ alert: 'database-connections-near-limit', operator: 'GreaterThan', threshold: 80, window: 'PT15M' }],
  'infrastructure/Database storage': [{ alert: 'database-storage-nearing-capacity', operator: 'GreaterThan', threshold: 80, window: 'PT30M' }],
  'infrastructure/Database connection success rate': [
    {
      alert: 'database-unreachable',
      operator: 'LessThan',
      threshold: 100,
      window: 'PT1M',
      failingPeriods: { numberOfEvaluationPeriods: 2, minFailingPeriodsToAlert: 2 },
    },
  ],
  'infrastructure/Blob storage transactions': [{ alert: 'blob-transactions-spike', operator: 'GreaterThan', threshold: 'dynamic', window: 'PT5M' }],
  'infrastructure/Cost (daily and monthly)': [
    { alert: 'monthly-cost-budget', operator: 'GreaterThan', threshold: 115, window: 'P1M', thresholdTypes: ['Actual', 'Forecasted'] },
    { alert: 'daily-cost-above-baseline', operator: 'GreaterThan', threshold: 115, window: 'P1D' },
  ],
};

/** Severity and route by the spec's table (infrastructure rows take the tier of the alert that implements them). */
const TIER_OF_TABLE = { critical: 'critical', warning: 'warning' } as const;

const alerts = loadAlerts();
const byName = new Map(alerts.map((alert) => [alert.name, alert]));
const specRows = specAlertRows();

describe('the alert catalogue (infra/alerts/*.json)', () => {
  it('reads the spec tables: 5 critical alerts, 6 warning alerts and 8 infrastructure thresholds', () => {
    expect(specRows.filter((row) => row.table === 'critical')).toHaveLength(5);
    expect(specRows.filter((row) => row.table === 'warning')).toHaveLength(6);
    expect(specRows.filter((row) => row.table === 'infrastructure')).toHaveLength(8);
    expect(Object.keys(EXPECTED).sort()).toEqual(specRows.map((row) => `${row.table}/${row.row}`).sort());
  });

  it('every file is valid against infra/alerts/schemas/alert-file.schema.json', () => {
    const schema = JSON.parse(readFileSync(path.join(ALERTS_DIR, 'schemas/alert-file.schema.json'), 'utf8')) as object;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    for (const file of loadAlertFiles()) {
      expect(validate(file.json) ? [] : validate.errors, file.file).toEqual([]);
    }
  });

  it('names every alert once', () => {
    expect(byName.size).toBe(alerts.length);
  });

  for (const row of specRows) {
    const key = `${row.table}/${row.row}`;
    it(`has "${row.row}" (${row.table}) with the spec's condition, threshold, window and severity`, () => {
      const expected = EXPECTED[key] ?? [];
      expect(expected.length, `no expectation written for ${key}`).toBeGreaterThan(0);
      for (const want of expected) {
        const alert = byName.get(want.alert);
        expect(alert, `${want.alert} for ${key}`).toBeDefined();
        if (!alert) continue;
        // The seed's condition, quoted exactly.
        expect(alert.implements).toContainEqual({ table: row.table, row: row.row, condition: row.condition });
        expect({
          operator: alert.operator,
          threshold: alert.threshold,
          window: alert.window,
          ...(want.failingPeriods ? { failingPeriods: alert.failingPeriods } : {}),
          ...(want.thresholdPercentOf ? { thresholdPercentOf: alert.thresholdPercentOf } : {}),
          ...(want.baselineWindow ? { baselineWindow: alert.baselineWindow } : {}),
          ...(want.thresholdTypes ? { thresholdTypes: alert.thresholdTypes } : {}),
        }).toEqual({
          operator: want.operator,
          threshold: want.threshold,
          window: want.window,
          ...(want.failingPeriods ? { failingPeriods: want.failingPeriods } : {}),
          ...(want.thresholdPercentOf ? { thresholdPercentOf: want.thresholdPercentOf } : {}),
          ...(want.baselineWindow ? { baselineWindow: want.baselineWindow } : {}),
          ...(want.thresholdTypes ? { thresholdTypes: want.thresholdTypes } : {}),
        });
        if (row.table !== 'infrastructure') {
          expect(alert.tier).toBe(TIER_OF_TABLE[row.table]);
          expect(alert.severity).toBe(row.table === 'critical' ? 0 : 2);
        }
      }
    });
  }

  it('claims no spec row the spec does not have', () => {
    const known = new Set(specRows.map((row) => JSON.stringify(row)));
    const claimed = alerts.flatMap((alert) => alert.implements.map((row) => ({ alert: alert.name, row })));
    expect(claimed.filter(({ row }) => !known.has(JSON.stringify(row)))).toEqual([]);
  });

  it('routes every critical alert to the paging group (severity 0-1) and every warning to the digest (severity 2-4)', () => {
    const misrouted = alerts.filter((alert: AlertEntry) =>
      alert.tier === 'critical' ? alert.actionGroup !== 'paging' || alert.severity > 1 : alert.actionGroup !== 'digest' || alert.severity < 2,
    );
    expect(misrouted.map((alert) => alert.name)).toEqual([]);
    expect(alerts.filter((alert) => alert.tier === 'critical').length).toBeGreaterThanOrEqual(6);
  });

  it('has an evaluation frequency no longer than the window, and windows log and metric alerts accept', () => {
    const minutes = (duration: string): number => {
      const match = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(duration);
      if (!match) return Number.NaN;
      return Number(match[1] ?? 0) * 1440 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
    };
    const metricWindows = new Set(['PT1M', 'PT5M', 'PT15M', 'PT30M', 'PT1H', 'PT6H', 'PT12H', 'P1D']);
    for (const alert of alerts.filter((entry) => entry.kind === 'log' || entry.kind === 'metric')) {
      expect(minutes(alert.frequency), alert.name).toBeLessThanOrEqual(minutes(alert.window));
      if (alert.kind === 'metric') expect(metricWindows.has(alert.window), `${alert.name} window ${alert.window}`).toBe(true);
      // Log search alerts look back at most two days.
      if (alert.kind === 'log') expect(minutes(alert.window), alert.name).toBeLessThanOrEqual(2 * 1440);
    }
  });
});

describe('the sign-in SLO burn-rate alerts', () => {
  const sloAlerts = alerts.filter((alert) => alert.slo);

  it('cover availability and latency, each with two paging windows and one ticket', () => {
    for (const name of ['Sign-in availability', 'Sign-in latency']) {
      const forSlo = sloAlerts.filter((alert) => alert.slo?.name === name);
      expect(forSlo.map((alert) => alert.actionGroup).sort(), name).toEqual(['digest', 'paging', 'paging']);
    }
  });

  it('state burn rate, windows and objective in the query exactly as in the entry', () => {
    for (const alert of sloAlerts) {
      const slo = alert.slo;
      const text = (alert.query ?? []).join('\n');
      const kqlWindow = (iso: string): string => iso.replace(/^PT?/, '').toLowerCase();
      expect(text, alert.name).toContain(`let sloTargetPercent = ${slo?.targetPercent};`);
      expect(text, alert.name).toContain(`let burnRate = ${slo?.burnRate};`);
      // The short window as a timespan literal: log search alerts accept ago() with literals only.
      expect(text, alert.name).toContain(`TimeGenerated > ago(${kqlWindow(slo?.shortWindow ?? '')})`);
      expect(alert.window, alert.name).toBe(slo?.longWindow);
      // Budget spent if the burn went on for the whole long window: burn rate × window ÷ period.
      const hours = { PT1H: 1, PT6H: 6, P1D: 24 }[slo?.longWindow ?? ''] ?? Number.NaN;
      expect(Math.round(((slo?.burnRate ?? 0) * hours * 1000) / ((slo?.periodDays ?? 0) * 24)) / 10, alert.name).toBe(
        slo?.budgetConsumedPercent,
      );
    }
  });
});
