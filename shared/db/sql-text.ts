/**
 * Small lexical helpers for SQL text: they find what lies outside string literals, quoted
 * identifiers and comments, which is all the adapters need (no parsing).
 */

const IDENTIFIER_START = /[A-Za-z_]/;
const IDENTIFIER_PART = /[A-Za-z0-9_]/;

/** Closing delimiters of the quoted forms both engines know: strings, identifiers, brackets, backticks. */
const QUOTES: Readonly<Record<string, string>> = { "'": "'", '"': '"', '[': ']', '`': '`' };

/**
 * The `@name` placeholders of `sql`, each once, in order of first use. `@@ROWCOUNT`-style system
 * names and anything inside quotes or comments are not placeholders.
 * @param sql one statement.
 */
export function namedParameters(sql: string): string[] {
  const names: string[] = [];
  forEachCodeChar(sql, (char, index) => {
    if (char !== '@' || sql[index - 1] === '@' || sql[index + 1] === '@') return index + 1;
    let end = index + 1;
    if (!IDENTIFIER_START.test(sql[end] ?? '')) return end;
    while (IDENTIFIER_PART.test(sql[end] ?? '')) end += 1;
    const name = sql.slice(index + 1, end);
    if (!names.includes(name)) names.push(name);
    return end;
  });
  return names;
}

/**
 * True when `sql` holds nothing but whitespace, semicolons and comments: what may follow the one
 * statement a call runs.
 */
export function isBlankSql(sql: string): boolean {
  let blank = true;
  forEachCodeChar(sql, (char, index) => {
    if (!/[\s;]/.test(char)) blank = false;
    return index + 1;
  });
  return blank;
}

/**
 * Calls `visit` for each character outside quotes and comments (quoted text counts as code for
 * blankness, so `visit` sees its opening quote); `visit` returns the index to continue from.
 */
function forEachCodeChar(sql: string, visit: (char: string, index: number) => number): void {
  let index = 0;
  while (index < sql.length) {
    const char = sql[index] as string;
    const next = sql[index + 1];
    if (char === '-' && next === '-') {
      const lineEnd = sql.indexOf('\n', index + 2);
      index = lineEnd === -1 ? sql.length : lineEnd + 1;
    } else if (char === '/' && next === '*') {
      const commentEnd = sql.indexOf('*/', index + 2);
      index = commentEnd === -1 ? sql.length : commentEnd + 2;
    } else if (char in QUOTES) {
      visit(char, index);
      index = skipQuoted(sql, index, QUOTES[char] as string);
    } else {
      index = visit(char, index);
    }
  }
}

/** The index after the quoted run that opens at `start`; a doubled closing delimiter is an escape. */
function skipQuoted(sql: string, start: number, close: string): number {
  let index = start + 1;
  while (index < sql.length) {
    if (sql[index] === close) {
      if (sql[index + 1] === close) {
        index += 2;
        continue;
      }
      return index + 1;
    }
    index += 1;
  }
  return sql.length;
}
