import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Every piece of SQL text the application's sources hold: the string and template literals under
 * shared/ that begin with a SQL keyword. A test can then prove that each was recorded as it reached
 * the SQL Server adapter, so no statement escapes the T-SQL grammar check by never being run.
 * Text that only SQLite ever sees is left out: the SQLite adapter and migrations, and the values of
 * `sqlite:` entries in a per-dialect table.
 */

export interface SqlLiteral {
  /** Relative path and line, for messages. */
  where: string;
  /** The literal's text; each `${…}` becomes `parts` boundaries. */
  parts: string[];
}

/**
 * Upper case only: the app writes SQL keywords in capitals, and prose that starts with the same
 * word ("Create a child account", an OpenAPI summary) is not SQL. `SQL_SPELLED_IN_LOWER_CASE`
 * catches a statement written in lower case, which this would otherwise miss.
 */
const SQL_START = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|MERGE|CREATE|ALTER|DROP|DECLARE|IF|EXEC)\b/;

/** A literal that reads like SQL in lower case: the inventory refuses it rather than skip it. */
export const SQL_SPELLED_IN_LOWER_CASE = /^\s*(select\s[\s\S]*\sfrom\s|insert\s+into\s|update\s+\w+\s+set\s|delete\s+from\s)/;

const SQLITE_ONLY_FILES = [/^shared\/db\/sqlite-database\.ts$/, /^shared\/db\/migrations\/sqlite\//];

/** The SQL literals of the `.ts` files (tests excluded) under `root/shared`. */
export function sqlLiterals(root: string): SqlLiteral[] {
  const literals: SqlLiteral[] = [];
  for (const file of sourceFiles(path.join(root, 'shared'))) {
    const relative = path.relative(root, file).split(path.sep).join('/');
    if (SQLITE_ONLY_FILES.some((pattern) => pattern.test(relative))) continue;
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      const parts = literalParts(node);
      if (parts && SQL_SPELLED_IN_LOWER_CASE.test(parts[0] ?? '')) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        throw new Error(`${relative}:${line + 1}: SQL keywords are written in capitals in this code base`);
      }
      if (parts && SQL_START.test(parts[0] ?? '') && !isSqliteEntry(node)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        literals.push({ where: `${relative}:${line + 1}`, parts });
        return;
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return literals;
}

/**
 * True when some recorded statement contains the literal, its `${…}` parts standing for anything.
 * @param statements recorded statement texts.
 */
export function isRecorded(literal: SqlLiteral, statements: readonly string[]): boolean {
  const pattern = new RegExp(literal.parts.map(escapeRegExp).join('[\\s\\S]*?'));
  return statements.some((statement) => pattern.test(statement));
}

function literalParts(node: ts.Node): string[] | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)];
  return undefined;
}

/** `{ sqlite: '…', mssql: '…' }`: the `sqlite` text never reaches SQL Server. */
function isSqliteEntry(node: ts.Node): boolean {
  const parent = node.parent;
  return parent !== undefined && ts.isPropertyAssignment(parent) && parent.initializer === node && parent.name.getText() === 'sqlite';
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : [];
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
