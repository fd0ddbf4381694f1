import { antlr4tsSQL, SQLDialect, type ANTLRErrorListener, type Token } from 'antlr4ts-sql';

/**
 * Checks SQL text against the T-SQL grammar of the grammars-v4 project (npm `antlr4ts-sql`), the
 * most faithful stand-in for SQL Server's own parser that runs here: it refuses the SQLite-isms a
 * shared statement could slip in (`LIMIT`, `INSERT OR IGNORE`, `ON CONFLICT`, `RETURNING`, `GLOB`,
 * `PRAGMA`). A grammar cannot know which functions exist, so calls to functions only SQLite has
 * are refused by name on top.
 */

const parser = new antlr4tsSQL(SQLDialect.TSQL);

/** Built-in functions of SQLite that SQL Server does not have (or has under another meaning). */
const SQLITE_ONLY_FUNCTIONS = new Set([
  'strftime',
  'datetime',
  'julianday',
  'unixepoch',
  'ifnull',
  'group_concat',
  'substr',
  'instr',
  'printf',
  'typeof',
  'randomblob',
  'total',
  'json_extract',
  'json_group_array',
  'last_insert_rowid',
  'changes',
  'likelihood',
  'glob',
]);

/**
 * The syntax errors SQL Server's grammar finds in `sql` (one batch), each as "line:column message",
 * shortened; an empty list when the text is valid T-SQL.
 */
export function tsqlSyntaxErrors(sql: string): string[] {
  const errors: string[] = [];
  const listener: ANTLRErrorListener<unknown> = {
    syntaxError: (_recognizer, _symbol, line, column, message) => {
      errors.push(`${line}:${column} ${message.length > 160 ? `${message.slice(0, 160)}…` : message}`);
    },
  };
  const tokens = parser.getTokens(sql, [listener]);
  parser.getParseTree(parser.getParser(tokens, [listener]));
  tokens.fill();
  // Token text comes from the original SQL: the grammar's case-folding stream does not keep it.
  const code = (tokens.getTokens() as Token[]).filter((token) => token.channel === 0 && token.type !== -1);
  const textOf = (token: Token | undefined) => (token ? sql.slice(token.startIndex, token.stopIndex + 1) : '');
  code.forEach((token, index) => {
    const name = textOf(token).toLowerCase();
    if (SQLITE_ONLY_FUNCTIONS.has(name) && textOf(code[index + 1]) === '(') {
      errors.push(`${token.line}:${token.charPositionInLine} ${name}() is a SQLite function, not a SQL Server one`);
    }
  });
  return errors;
}
