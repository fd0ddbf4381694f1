import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAlerts, loadTableSchemas, loadWorkspaceFunctions, ROOT, type AlertEntry } from './alert-catalogue';
import { createKustoAnalyzer } from './kusto';
import { ALERTS_BICEP_INLINING, deployedQuery, logAlertProblems, type RuleContext } from './log-alert-rules';

/**
 * Every log search rule is one Azure runs. The checks of log-alert-rules.ts run
 * over the query each rule deploys, and each fails on a rule broken in its way.
 */
const functions = loadWorkspaceFunctions();
const tables = loadTableSchemas();
const context: RuleContext = { functions, tables: Object.keys(tables), analyzer: createKustoAnalyzer({ tables, functions }) };
const alerts = loadAlerts();
const logAlerts = alerts.filter((alert) => alert.kind === 'log');
const alertsBicep = readFileSync(path.join(ROOT, 'infra/modules/alerts.bicep'), 'utf8');

/** A sound one-minute rule to break in one way at a time. */
const SOUND: AlertEntry = {
  name: 'fixture',
  displayName: 'fixture',
  tier: 'critical',
  severity: 0,
  actionGroup: 'paging',
  kind: 'log',
  implements: [],
  description: 'fixture',
  window: 'PT1M',
  frequency: 'PT1M',
  operator: 'LessThan',
  threshold: 100,
  timeAggregation: 'Minimum',
  metricMeasureColumn: 'successRatePercent',
  failingPeriods: { numberOfEvaluationPeriods: 2, minFailingPeriodsToAlert: 2 },
  query: [
    'AzureMetrics',
    '| where MetricName in ("connection_successful", "connection_failed")',
    '| summarize succeeded = sumif(Total, MetricName == "connection_successful"), failed = sumif(Total, MetricName == "connection_failed") by bin(TimeGenerated, 1m)',
    '| extend successRatePercent = 100.0 * succeeded / (succeeded + failed)',
  ],
};
const broken = (change: Partial<AlertEntry>): string[] => logAlertProblems({ ...SOUND, ...change }, context);

describe('log search alert rules under Azure Monitor\'s documented rules', () => {
  it('finds the log rules, one-minute ones among them', () => {
    expect(logAlerts.length).toBeGreaterThanOrEqual(15);
    expect(logAlerts.filter((alert) => alert.frequency === 'PT1M').length).toBeGreaterThanOrEqual(5);
  });

  it('every deployed rule passes every check', () => {
    expect(logAlerts.flatMap((alert) => logAlertProblems(alert, context))).toEqual([]);
  });

  it('the sound fixture passes (so each broken one below fails for its own reason)', () => {
    expect(logAlertProblems(SOUND, context)).toEqual([]);
  });

  it('fails a one-minute rule with take, ingestion_time() or a cross-resource query', () => {
    const cases: [string[], RegExp][] = [
      [[...(SOUND.query ?? []), '| take 10'], /take\/limit/],
      [['AzureMetrics', '| where ingestion_time() > ago(5m)', '| summarize successRatePercent = 100.0 by bin(TimeGenerated, 1m)'], /ingestion_time/],
      [['workspace("other").AzureMetrics', '| summarize successRatePercent = 100.0 by bin(TimeGenerated, 1m)'], /cross-resource/],
    ];
    for (const [query, why] of cases) expect(broken({ query }).join('\n'), query.join(' ')).toMatch(why);
    // The same words in a string or a comment are not the operators.
    expect(broken({ query: [...(SOUND.query ?? []), '// no union here', '| where "take" != "union"'] })).toEqual([]);
  });

  it('fails search and union at any frequency, a cross-resource union excepted', () => {
    const everyFiveMinutes = (query: string[]): string => broken({ frequency: 'PT5M', window: 'PT5M', query }).join('\n');
    const summary = '| summarize successRatePercent = 100.0 by bin(TimeGenerated, 1m)';
    expect(everyFiveMinutes(['union AzureMetrics, AppEvents', summary])).toMatch(/cannot use union except across resources/);
    expect(everyFiveMinutes(['union', '  (AzureMetrics | where Total > 0),', '  (AppEvents | where Name == "x")', summary])).toMatch(
      /cannot use union except across resources/,
    );
    expect(everyFiveMinutes(['AzureMetrics', '| union AppEvents', summary])).toMatch(/cannot use union/);
    expect(everyFiveMinutes(['search "connection"', summary])).toMatch(/cannot use the search operator/);
    expect(everyFiveMinutes(['AzureMetrics', '| search "connection"', summary])).toMatch(/cannot use the search operator/);
    expect(broken({ query: ['union AzureMetrics, AppEvents', summary] }).join('\n')).toMatch(/cannot use union/);
    // Azure's own exception: a union of cross-resource tables is a supported alert query.
    const crossResource = everyFiveMinutes([
      'union app("00000000-0000-0000-0000-000000000001").requests, workspace("00000000-0000-0000-0000-000000000003").Perf',
      summary,
    ]);
    expect(crossResource).not.toMatch(/cannot use (union|the search)/);
    // A join of two tables is not a union: the five-minute rule may read both.
    expect(everyFiveMinutes(['AzureMetrics', '| join kind=inner (AppEvents) on TimeGenerated', summary])).toBe('');
  });

  it('fails a one-minute rule that calls a workspace function it does not inline, or reads two tables', () => {
    const otherFunctions = new Map([...functions, ['OtherFunction', 'AzureMetrics | where Total > 0']]);
    const withOther = { ...context, functions: otherFunctions, analyzer: createKustoAnalyzer({ tables, functions: otherFunctions }) };
    const viaFunction = logAlertProblems({ ...SOUND, query: ['OtherFunction', ...(SOUND.query ?? []).slice(1)] }, withOther);
    expect(viaFunction.join('\n')).toMatch(/cannot call the workspace function OtherFunction/);
    // The same rule every five minutes may call it.
    expect(logAlertProblems({ ...SOUND, frequency: 'PT5M', window: 'PT5M', query: ['OtherFunction', ...(SOUND.query ?? []).slice(1)] }, withOther)).toEqual([]);
    const joined = broken({
      query: ['AzureMetrics', '| join kind=inner (AppEvents) on TimeGenerated', '| summarize successRatePercent = 100.0 by bin(TimeGenerated, 1m)'],
    });
    expect(joined.join('\n')).toMatch(/reads one table, not 2/);
    expect(
      broken({ frequency: 'PT5M', window: 'PT5M', query: ['AzureMetrics', '| join kind=inner (AppEvents) on TimeGenerated', '| summarize successRatePercent = 100.0 by bin(TimeGenerated, 1m)'] }),
    ).toEqual([]);
  });

  it('deploys AppLogLines inlined, so a one-minute rule that names it reads only ContainerAppConsoleLogs', () => {
    const fromApp = alerts.find((alert) => alert.name === 'database-unreachable-from-app');
    expect(fromApp?.frequency).toBe('PT1M');
    expect(fromApp?.query?.[0]).toBe('AppLogLines');
    const text = deployedQuery(fromApp ?? SOUND, functions);
    expect(text).not.toMatch(/\bAppLogLines\b/);
    expect(text).toMatch(/\nContainerAppConsoleLogs\n/);
    expect(logAlertProblems(fromApp ?? SOUND, context)).toEqual([]);
  });

  it('fails ago() with anything but a timespan literal', () => {
    const query = ['let shortWindow = 5m;', ...(SOUND.query ?? []).slice(0, 1), '| where TimeGenerated > ago(shortWindow)', ...(SOUND.query ?? []).slice(1)];
    expect(broken({ query }).join('\n')).toMatch(/ago\(shortWindow\)/);
    expect(broken({ query: query.map((line) => line.replace('ago(shortWindow)', 'ago(time(5m))')) }).join('\n')).toMatch(/ago\(time\(5m/);
    expect(broken({ query: query.map((line) => line.replace('ago(shortWindow)', 'ago(5m)')) })).toEqual([]);
  });

  it('fails "number of violations" without a datetime column in the results', () => {
    const query = [
      'AzureMetrics',
      '| summarize succeeded = sumif(Total, MetricName == "connection_successful"), failed = sumif(Total, MetricName == "connection_failed")',
      '| extend successRatePercent = 100.0 * succeeded / (succeeded + failed)',
    ];
    expect(broken({ query }).join('\n')).toMatch(/needs a datetime column/);
    // One period needs none.
    expect(broken({ query, failingPeriods: { numberOfEvaluationPeriods: 1, minFailingPeriodsToAlert: 1 } })).toEqual([]);
  });

  it('fails a measure column the results do not have, or a misspelt column', () => {
    expect(broken({ metricMeasureColumn: 'successRate' }).join('\n')).toMatch(/measure column successRate/);
    expect(broken({ query: [...(SOUND.query ?? []), '| where Totl > 0'] }).join('\n')).toMatch(/Error/);
  });

  it('deploys with query validation on and the AppLogLines body inlined', () => {
    expect(alertsBicep).toContain('skipQueryValidation: false');
    expect(alertsBicep).not.toContain('skipQueryValidation: true');
    expect(alertsBicep).toContain(ALERTS_BICEP_INLINING);
    expect(alertsBicep).toContain("var appLogLines = loadTextContent('../alerts/functions/AppLogLines.kql')");
  });
});

describe('the API error rate', () => {
  const rule = alerts.find((alert) => alert.name === 'api-error-rate-critical');
  const text = (rule?.query ?? []).join('\n');

  it('reads the host\'s request telemetry (every answer, the ones the app never logged too), probes excluded', () => {
    expect(rule?.query?.[0]).toBe('AppRequests');
    expect(text).toContain('path !in ("/api/health", "/api/ready")');
    expect(text).toContain('hostServerErrors = sumif(ItemCount, toint(ResultCode) >= 500)');
    expect(text).toContain('errorRatePercent = 100.0 * serverErrors / requests');
  });

  it('joins the ingress\'s answers (the 5xx no host gave too) from the latest ingress.requests event, without union', () => {
    expect(text).toMatch(/\| join kind=fullouter \(\n\s*AppEvents\n\s*\| where Name == "ingress\.requests"\n\s*\| summarize arg_max\(TimeGenerated, Properties\)/);
    expect(text).toContain('ingressRequests = tolong(Properties.requests), ingressServerErrors = tolong(Properties.serverErrors)');
    // The larger count of each kind: the ingress's includes the host's answers, so adding them would count those twice;
    // either side may be missing (no ingress event yet, no host answer), and counts as none.
    expect(text).toMatch(/requests = max_of\(coalesce\(hostRequests, \w*\(?0\)?\), coalesce\(ingressRequests, \w*\(?0\)?\)\)/);
    expect(text).toMatch(/serverErrors = max_of\(coalesce\(hostServerErrors, \w*\(?0\)?\), coalesce\(ingressServerErrors, \w*\(?0\)?\)\)/);
    expect(text).not.toMatch(/\bunion\b|\bsearch\b/);
  });

  it('runs every 5 minutes over 5 minutes: two tables are more than a one-minute rule may read', () => {
    expect(rule?.window).toBe('PT5M');
    expect(rule?.frequency).toBe('PT5M');
    expect(logAlertProblems(rule ?? SOUND, context)).toEqual([]);
    const atOneMinute = logAlertProblems({ ...(rule ?? SOUND), frequency: 'PT1M' }, context).join('\n');
    expect(atOneMinute).toMatch(/reads one table, not 2/);
  });

  it('has no floor of failed answers the spec does not have', () => {
    expect(text).not.toMatch(/serverErrors\s*>=?\s*\d/);
    expect(rule?.threshold).toBe(5);
  });
});
