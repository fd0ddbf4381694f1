import { loadAlerts, loadWorkspaceFunctions } from '../infra/alert-catalogue';

/**
 * Applies a log alert's filter to the app's own log lines, the way Log Analytics would see them:
 * through the `AppLogLines` workspace function, whose columns come from the line's fields
 * (`level = tostring(line.level)`). Only the simplest alerts can be read this way: `AppLogLines`
 * then `| where column == "value" and ...` clauses. Anything else throws, so a test built on this
 * fails when the query grows a shape it cannot check, instead of passing without checking.
 */
export interface LineFilter {
  /** Column → the line field it is read from and the value the query wants. */
  conditions: { column: string; field: string; value: string }[];
  matches(line: Record<string, unknown>): boolean;
}

/** The `AppLogLines` columns read from a field of the line: column → field. */
function appLogLineColumns(): Map<string, string> {
  const body = loadWorkspaceFunctions().get('AppLogLines');
  if (!body) throw new Error('infra/alerts/functions/AppLogLines.kql is missing');
  const columns = new Map<string, string>();
  for (const match of body.matchAll(/^\s*(\w+)\s*=\s*to\w+\(line\.(\w+)\)/gm)) columns.set(match[1] ?? '', match[2] ?? '');
  return columns;
}

/** The filter of the log alert `name` (infra/alerts/*.json). */
export function alertLineFilter(name: string): LineFilter {
  const alert = loadAlerts().find((entry) => entry.name === name);
  if (!alert?.query) throw new Error(`no log alert named ${name}`);
  const [table, ...clauses] = alert.query;
  if (table?.trim() !== 'AppLogLines') throw new Error(`${name} does not read AppLogLines`);
  const columns = appLogLineColumns();
  const conditions: LineFilter['conditions'] = [];
  for (const clause of clauses) {
    const where = /^\|\s*where\s+(.+)$/.exec(clause.trim());
    if (!where) throw new Error(`${name}: cannot check "${clause}"`);
    for (const part of (where[1] ?? '').split(/\s+and\s+/)) {
      const condition = /^(\w+)\s*==\s*"([^"]*)"$/.exec(part.trim());
      const field = condition ? columns.get(condition[1] ?? '') : undefined;
      if (!condition || !field) throw new Error(`${name}: cannot check "${part}" (only AppLogLines columns compared with ==)`);
      conditions.push({ column: condition[1] ?? '', field, value: condition[2] ?? '' });
    }
  }
  if (conditions.length === 0) throw new Error(`${name}: no condition to check`);
  return {
    conditions,
    matches: (line) => conditions.every(({ field, value }) => typeof line[field] === 'string' && line[field] === value),
  };
}
