import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The repository root, from this file's place in it. */
export const ROOT = path.resolve(__dirname, '../..');
export const ALERTS_DIR = path.join(ROOT, 'infra/alerts');

export interface SpecRow {
  table: 'critical' | 'warning' | 'infrastructure';
  row: string;
  condition: string;
}

/** One entry of an alert file (infra/alerts/schemas/alert-file.schema.json). */
export interface AlertEntry {
  name: string;
  displayName: string;
  tier: 'critical' | 'warning';
  severity: number;
  actionGroup: 'paging' | 'digest';
  kind: 'log' | 'metric' | 'budget';
  implements: SpecRow[];
  slo?: {
    name: string;
    objective: string;
    targetPercent: number;
    periodDays: number;
    burnRate: number;
    longWindow: string;
    shortWindow: string;
    budgetConsumedPercent: number;
  };
  description: string;
  window: string;
  frequency: string;
  operator: string;
  threshold: number | 'dynamic';
  thresholdPercentOf?: string;
  thresholdTypes?: string[];
  baselineWindow?: string;
  sensitivity?: string;
  failingPeriods?: { numberOfEvaluationPeriods: number; minFailingPeriodsToAlert: number };
  timeAggregation?: string;
  metricMeasureColumn?: string;
  query?: string[];
  target?: string;
  metricNamespace?: string;
  metricName?: string;
  aggregation?: string;
  runbook?: string;
}

export interface AlertFile {
  /** Path relative to infra/, as the Bicep's loadJsonContent spells it from infra/modules/. */
  file: string;
  json: { title: string; alerts: AlertEntry[] };
}

/** Every alert file under infra/alerts/ (not the schemas), parsed. */
export function loadAlertFiles(): AlertFile[] {
  return readdirSync(ALERTS_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({
      file: `alerts/${name}`,
      json: JSON.parse(readFileSync(path.join(ALERTS_DIR, name), 'utf8')) as AlertFile['json'],
    }));
}

/** Every alert entry of every file. */
export function loadAlerts(): AlertEntry[] {
  return loadAlertFiles().flatMap((file) => file.json.alerts);
}

/** A query's text as the Bicep joins it. */
export function queryText(alert: AlertEntry): string {
  return (alert.query ?? []).join('\n');
}

/** The workspace functions (infra/alerts/functions/<Name>.kql): name → body. */
export function loadWorkspaceFunctions(): Map<string, string> {
  const dir = path.join(ALERTS_DIR, 'functions');
  return new Map(
    readdirSync(dir)
      .filter((name) => name.endsWith('.kql'))
      .map((name) => [name.replace(/\.kql$/, ''), readFileSync(path.join(dir, name), 'utf8')]),
  );
}

/** Table name → Kusto schema string `(Column:type, ...)`. */
export function loadTableSchemas(): Record<string, string> {
  const json = JSON.parse(readFileSync(path.join(ALERTS_DIR, 'schemas/tables.json'), 'utf8')) as {
    tables: Record<string, string>;
  };
  return json.tables;
}

/** A query found somewhere in infra/ or docs/, with where it came from for failure messages. */
export interface NamedQuery {
  where: string;
  text: string;
}

/** The queries of the workbook (every item of type 3, nested groups included). */
export function loadWorkbookQueries(): NamedQuery[] {
  const dir = path.join(ROOT, 'infra/workbooks');
  const found: NamedQuery[] = [];
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.json'))) {
    const walk = (items: WorkbookItem[] | undefined): void => {
      for (const item of items ?? []) {
        if (item.type === 3 && typeof item.content?.query === 'string') {
          found.push({ where: `infra/workbooks/${name} (${item.name ?? '?'})`, text: item.content.query });
        }
        walk(item.content?.items);
      }
    };
    walk((JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as { items?: WorkbookItem[] }).items);
  }
  return found;
}

interface WorkbookItem {
  type: number;
  name?: string;
  content?: { query?: unknown; items?: WorkbookItem[] };
}

/** The ```kusto blocks of the runbooks. */
export function loadRunbookQueries(): NamedQuery[] {
  const dir = path.join(ROOT, 'docs/runbooks');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.md'))
    .flatMap((name) =>
      [...readFileSync(path.join(dir, name), 'utf8').matchAll(/```kusto\n([\s\S]*?)```/g)].map((match, index) => ({
        where: `docs/runbooks/${name} (query ${index + 1})`,
        text: match[1] ?? '',
      })),
    );
}

/** Every query the operators run: alert rules, workbook tiles and runbook blocks. */
export function allQueries(): NamedQuery[] {
  return [
    ...loadAlerts()
      .filter((alert) => alert.query)
      .map((alert) => ({ where: `alert ${alert.name}`, text: queryText(alert) })),
    ...loadWorkbookQueries(),
    ...loadRunbookQueries(),
  ];
}
