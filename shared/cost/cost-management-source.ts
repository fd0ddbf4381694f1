import { managedIdentity } from '../azure/managed-identity';
import type { DailyCost } from './daily-cost';

/**
 * Where daily costs come from: Cost Management's query API for a scope (the resource group of the
 * deployment), read with the app's managed identity (role *Cost Management Reader* on the scope,
 * `infra/modules/cost-reader.bicep`).
 */
export interface DailyCostSource {
  /** Actual cost per UTC day from `from` to `to` (`YYYY-MM-DD`, both included). Days without data are absent. */
  readDailyCosts(from: string, to: string): Promise<DailyCostSeries>;
}

export interface DailyCostSeries {
  series: DailyCost[];
  /** The billing currency Cost Management reported, when it did. */
  currency: string | null;
}

export interface CostManagementAccess {
  /** ARM scope: `/subscriptions/<id>` or `/subscriptions/<id>/resourceGroups/<name>`. */
  scope: string;
  /** Client id of the user-assigned identity; undefined uses the default credential chain (development). */
  clientId: string | undefined;
}

/**
 * The official Cost Management SDK (`@azure/arm-costmanagement`). It and `@azure/identity` are
 * loaded on the first read, once a day, never on the start path of the function app.
 */
export function costManagementSource(access: CostManagementAccess): DailyCostSource {
  return {
    async readDailyCosts(from, to) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const costs = require('@azure/arm-costmanagement') as typeof import('@azure/arm-costmanagement');
      const client = new costs.CostManagementClient(managedIdentity(access.clientId));
      const result = await client.query.usage(access.scope, {
        type: 'ActualCost',
        timeframe: 'Custom',
        timePeriod: { from: new Date(`${from}T00:00:00Z`), to: new Date(`${to}T23:59:59Z`) },
        dataset: { granularity: 'Daily', aggregation: { totalCost: { name: 'Cost', function: 'Sum' } } },
      });
      return dailyCostsOfResult(result.columns ?? [], result.rows ?? []);
    },
  };
}

/**
 * Reads a query result's rows by their column names: `Cost` (or `PreTaxCost`), `UsageDate` as the
 * number `yyyymmdd` (or a date string) and `Currency`. Rows it cannot read are skipped.
 */
export function dailyCostsOfResult(columns: readonly { name?: string }[], rows: readonly unknown[][]): DailyCostSeries {
  const index = (...names: string[]): number => columns.findIndex((column) => names.includes(column.name ?? ''));
  const costColumn = index('Cost', 'PreTaxCost', 'totalCost');
  const dateColumn = index('UsageDate');
  const currencyColumn = index('Currency');
  let currency: string | null = null;
  const series: DailyCost[] = [];
  for (const row of rows) {
    const cost = Number(row[costColumn]);
    const day = dayOf(row[dateColumn]);
    if (!Number.isFinite(cost) || day === undefined) continue;
    series.push({ day, cost });
    if (currencyColumn >= 0 && typeof row[currencyColumn] === 'string') currency = row[currencyColumn];
  }
  return { series, currency };
}

function dayOf(value: unknown): string | undefined {
  const text = String(value ?? '');
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  if (compact) return `${compact[1]}-${compact[2]}-${compact[3]}`;
  const iso = /^(\d{4}-\d{2}-\d{2})/.exec(text);
  return iso?.[1];
}
