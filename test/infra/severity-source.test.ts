import { describe, expect, it } from 'vitest';
import { allQueries, loadWorkspaceFunctions, type NamedQuery } from './alert-catalogue';

/**
 * The Functions host records every stdout line of the worker at Information,
 * whatever the line says (azure-functions-host, `WorkerProcess.OnOutputDataReceived`), and a stderr
 * line by the words in it ("warn", else "error", "fail", "severe": `ParseErrorMessageAndLog`). So
 * the host's severity of an app line means nothing: every query, alert and workbook tile that needs
 * a level reads the `level` of the app's own JSON line, which `AppLogLines` parses out of the console
 * row the line lands in.
 */

/** What only the host's (or the SDK's) view of a row's severity would be read through. */
const HOST_SEVERITY = [
  { pattern: /\bseveritylevel\b/i, why: 'a severity column (the host records app lines at Information)' },
  { pattern: /\bseverity\b/i, why: 'a severity column' },
  { pattern: /\b(AppTraces|traces)\b/, why: 'the host\'s trace rows (their level is the host\'s, not the line\'s)' },
  { pattern: /\bLogLevel\b/i, why: 'the host\'s log level' },
];

/** Why a query reads a level other than the app line's own; empty when it does not. */
function severityProblems(query: NamedQuery): string[] {
  const text = query.text.replace(/\/\/.*$/gm, '');
  const problems = HOST_SEVERITY.filter(({ pattern }) => pattern.test(text)).map(({ why }) => `${query.where}: reads ${why}`);
  const ownLevel = /\bAppLogLines\b/.test(text) || /\blevel = tostring\(line\.level\)/.test(text);
  if (/\blevel\b/.test(text) && !ownLevel) {
    problems.push(`${query.where}: filters on a level without AppLogLines (the JSON line's own level)`);
  }
  return problems;
}

describe('levels in the KQL of infra/ and the runbooks', () => {
  const functions = loadWorkspaceFunctions();

  it('AppLogLines takes `level` from the JSON line it parses out of the console row', () => {
    const body = functions.get('AppLogLines') ?? '';
    expect(body).toMatch(/^ContainerAppConsoleLogs\b/m);
    expect(body).toMatch(/line = parse_json\(extract\(/);
    expect(body).toMatch(/level = tostring\(line\.level\)/);
    expect(severityProblems({ where: 'AppLogLines', text: body })).toEqual([]);
  });

  it('no alert, workbook tile, workspace function or runbook query reads the host\'s severity', () => {
    const queries = [...allQueries(), ...[...functions].map(([name, text]) => ({ where: `function ${name}`, text }))];
    expect(queries.length).toBeGreaterThan(20);
    expect(queries.flatMap(severityProblems)).toEqual([]);
    // The queries that do read a level exist, and go through AppLogLines.
    expect(queries.filter((query) => /\blevel\b/.test(query.text.replace(/\/\/.*$/gm, ''))).length).toBeGreaterThanOrEqual(2);
  });

  it('would catch a query that reads the host\'s severity (the check can fail)', () => {
    const bad = [
      'AppTraces | where SeverityLevel >= 3 | count',
      'traces | where severityLevel == 3',
      'ContainerAppConsoleLogs | extend level = extract("(error|warn)", 1, Log) | where level == "error"',
      'AppExceptions | where SeverityLevel == 4',
    ];
    for (const text of bad) expect(severityProblems({ where: 'sample', text }), text).not.toEqual([]);
    expect(severityProblems({ where: 'sample', text: 'AppLogLines | where level == "error" | count' })).toEqual([]);
  });
});
