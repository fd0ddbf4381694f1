import { describe, expect, it } from 'vitest';
import { allQueries, loadTableSchemas, loadWorkspaceFunctions } from './alert-catalogue';
import { createKustoAnalyzer } from './kusto';

/**
 * Every KQL query operators run (alert rules, the workbook, the runbooks) and the workspace
 * function they share parse and analyse without errors under the Kusto language service, against
 * the columns of the tables they read (infra/alerts/schemas/tables.json).
 */
const functions = loadWorkspaceFunctions();
const analyzer = createKustoAnalyzer({ tables: loadTableSchemas(), functions });
const queries = allQueries();

describe('KQL under the Kusto language service', () => {
  it('finds the queries of alerts, workbook and runbooks', () => {
    expect(queries.filter((query) => query.where.startsWith('alert ')).length).toBeGreaterThanOrEqual(15);
    expect(queries.filter((query) => query.where.startsWith('infra/workbooks/')).length).toBeGreaterThanOrEqual(6);
    expect(queries.filter((query) => query.where.startsWith('docs/runbooks/')).length).toBeGreaterThanOrEqual(5);
  });

  it('analyses the workspace functions cleanly as queries of their own', () => {
    expect(functions.size).toBeGreaterThan(0);
    for (const [name, body] of functions) expect(analyzer.diagnose(body), name).toEqual([]);
  });

  it('analyses every query cleanly', () => {
    const broken = queries
      .map((query) => ({ where: query.where, problems: analyzer.diagnose(query.text) }))
      .filter((result) => result.problems.length > 0);
    expect(broken).toEqual([]);
  });

  it('would catch a misspelt column, table or function (the check can fail)', () => {
    expect(analyzer.diagnose('AppLogLines | where statuscode >= 500')).not.toEqual([]);
    expect(analyzer.diagnose('AppEvent | where Name == "auth.failure"')).not.toEqual([]);
    expect(analyzer.diagnose('AppEvents | summarize count() by')).not.toEqual([]);
  });
});
