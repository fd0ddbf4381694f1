import { queryText, type AlertEntry } from './alert-catalogue';
import { multiTableOperators, type KustoAnalyzer } from './kusto';

/**
 * Azure Monitor's documented rules for log search alert rules ("Create or edit a log search alert
 * rule" and "Optimize log search alert queries"), encoded as checks over a catalogue entry and the
 * query Azure receives. Each rule says where it comes from; each is shown to fail on a broken rule
 * in log-alert-rules.test.ts.
 */

/**
 * The query as `infra/modules/alerts.bicep` deploys it: every use of the workspace function
 * `AppLogLines` is replaced by its body in parentheses, so no deployed rule depends on a saved
 * function (a one-minute rule may not call one that reads another table, and validation does not
 * wait for the function to exist). The Bicep does the same with `replace()`;
 * `ALERTS_BICEP_INLINING` is the expression the test finds there.
 */
export function deployedQuery(alert: AlertEntry, functions: ReadonlyMap<string, string>): string {
  let text = queryText(alert);
  for (const name of INLINED_FUNCTIONS) text = text.split(name).join(`(\n${functions.get(name) ?? ''})`);
  return text;
}

/** The workspace functions alerts.bicep inlines; any other function stays a call (and fails a one-minute rule). */
export const INLINED_FUNCTIONS = ['AppLogLines'] as const;

/** The expression of alerts.bicep that does what `deployedQuery` does (kept in step by a test). */
export const ALERTS_BICEP_INLINING = "replace(join(alert.query, '\\n'), 'AppLogLines', '(\\n${appLogLines})')";

/** The query's text without comments and string literals, so words inside them do not count. */
export function codeOf(query: string): string {
  return query
    .replace(/@?"(?:[^"\\\n]|\\.)*"|@?'(?:[^'\\\n]|\\.)*'/g, '""')
    .replace(/\/\/.*$/gm, '');
}

const minutes = (duration: string): number => {
  const match = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(duration);
  return match ? Number(match[1] ?? 0) * 1440 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0) : Number.NaN;
};

/** Operators and functions a one-minute rule cannot run ("Create or edit a log search alert rule", frequency of 1 minute). */
const NOT_AT_ONE_MINUTE = [
  { pattern: /\|\s*(take|limit)\b/, what: 'take/limit' },
  { pattern: /\bingestion_time\s*\(/, what: 'ingestion_time()' },
  { pattern: /\b(workspace|app|resource|adx|arg)\s*\(/, what: 'a cross-resource query (workspace(), app(), resource(), adx(), arg())' },
];

/** A cross-resource reference, the one operand Azure lets a log search alert's `union` have: `app("…").requests`. */
const CROSS_RESOURCE_OPERAND = /^(app|workspace|resource)\s*\(\s*(@?"[^"]*"|@?'[^']*')\s*\)\s*\.\s*[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * "Optimize log search alert queries", log query constraints: creating or changing a log search
 * alert rule whose query uses `search` or `union` is not supported, except cross-resource queries
 * (a union of `app()`, `workspace()` or `resource()` tables). At any frequency.
 */
function multiTableProblems(name: string, query: string): string[] {
  return multiTableOperators(query).flatMap(({ operator, start, operands }) => {
    const near = JSON.stringify(query.slice(start, start + 30));
    if (operator === 'search') return [`${name}: a log search alert cannot use the search operator (near ${near})`];
    const local = operands.filter((operand) => !CROSS_RESOURCE_OPERAND.test(operand.trim()));
    return local.length > 0 || operands.length === 0
      ? [`${name}: a log search alert cannot use union except across resources (near ${near})`]
      : [];
  });
}

/** A timespan literal: `5m`, `1.5h`, `30s`, `2d`, `100ms`, `1tick`, `time(1h)` is not one. */
const TIMESPAN_LITERAL = /^\d+(\.\d+)?\s*(d|h|m|s|ms|microseconds?|ticks?|days?|hours?|minutes?|seconds?|milliseconds?)$/;

export interface RuleContext {
  /** The workspace functions (name → body). */
  functions: ReadonlyMap<string, string>;
  /** The tables of the workspace schema (`infra/alerts/schemas/tables.json`). */
  tables: readonly string[];
  analyzer: KustoAnalyzer;
}

/**
 * Why Azure would reject or never fire a `log` entry, as the query it deploys; empty when none.
 * The entry's own query (with `AppLogLines` not yet inlined) is checked for what the catalogue
 * controls; the deployed query for what Azure sees.
 */
export function logAlertProblems(alert: AlertEntry, context: RuleContext): string[] {
  if (alert.kind !== 'log') return [];
  const problems: string[] = [];
  const deployed = deployedQuery(alert, context.functions);
  const code = codeOf(deployed);

  problems.push(...multiTableProblems(alert.name, deployed));

  if (minutes(alert.frequency) === 1) {
    for (const { pattern, what } of NOT_AT_ONE_MINUTE) {
      if (pattern.test(code)) problems.push(`${alert.name}: a one-minute rule cannot use ${what}`);
    }
    for (const name of context.functions.keys()) {
      if (new RegExp(`\\b${name}\\b`).test(code)) problems.push(`${alert.name}: a one-minute rule cannot call the workspace function ${name}`);
    }
    const tablesRead = context.tables.filter((table) => new RegExp(`\\b${table}\\b`).test(code));
    if (tablesRead.length !== 1) problems.push(`${alert.name}: a one-minute rule reads one table, not ${tablesRead.length} (${tablesRead.join(', ')})`);
  }

  for (const match of code.matchAll(/\bago\s*\(([^)]*)\)/g)) {
    const argument = (match[1] ?? '').trim();
    if (!TIMESPAN_LITERAL.test(argument)) problems.push(`${alert.name}: ago(${argument}) — log search alerts accept ago() with a timespan literal only`);
  }

  const columns = context.analyzer.resultColumns(deployed);
  const periods = alert.failingPeriods;
  if (periods && (periods.numberOfEvaluationPeriods > 1 || periods.minFailingPeriodsToAlert > 1)) {
    if (!columns.some((column) => column.type === 'datetime')) {
      problems.push(`${alert.name}: "number of violations" (${periods.minFailingPeriodsToAlert} of ${periods.numberOfEvaluationPeriods}) needs a datetime column in the results`);
    }
  }
  if (alert.metricMeasureColumn) {
    const measure = columns.find((column) => column.name === alert.metricMeasureColumn);
    if (!measure || !['real', 'int', 'long', 'decimal'].includes(measure.type)) {
      problems.push(`${alert.name}: the measure column ${alert.metricMeasureColumn} is not a number column of the results`);
    }
  } else if (alert.timeAggregation && alert.timeAggregation !== 'Count') {
    problems.push(`${alert.name}: ${alert.timeAggregation} needs a metricMeasureColumn`);
  }
  for (const diagnostic of context.analyzer.diagnose(deployed)) problems.push(`${alert.name}: ${diagnostic}`);
  return problems;
}
