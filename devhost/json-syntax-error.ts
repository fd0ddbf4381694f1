/**
 * Where a JSON text first breaks the grammar (RFC 8259), for a person who edited a settings file by hand.
 * `JSON.parse` gives a position for some mistakes only ("Unexpected token '}'" has none), and its message
 * quotes the text, which may hold secrets: this scan names the line, the column and what is wrong there,
 * never the content.
 */
export interface JsonSyntaxError {
  /** 1-based, as editors count. */
  line: number;
  /** 1-based, in UTF-16 code units (an editor's column for the text these files hold). */
  column: number;
  /** What is wrong there, e.g. "expected a property name in double quotes". */
  problem: string;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;
// A string's content: no control characters; escapes as the grammar allows them.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

class Stop {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {}
}

/** The first syntax error of `text`, or undefined when it is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let at = 0;
  const space = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at] ?? '')) at++;
  };
  const match = (pattern: RegExp): boolean => {
    pattern.lastIndex = at;
    if (!pattern.test(text)) return false;
    at = pattern.lastIndex;
    return true;
  };
  // An object and an array differ only in their closing bracket and in what one member is.
  const members = (close: '}' | ']', member: () => void, afterMember: string): void => {
    at++;
    space();
    if (text[at] === close) return void at++;
    for (let comma = -1; ; ) {
      space();
      if (comma >= 0 && text[at] === close) throw new Stop(comma, `a comma before "${close}" is not allowed`);
      member();
      space();
      if (text[at] === close) return void at++;
      if (text[at] !== ',') throw new Stop(at, `expected "," or "${close}" after ${afterMember}`);
      comma = at++;
    }
  };
  const property = (): void => {
    if (!match(STRING)) throw new Stop(at, 'expected a property name in double quotes');
    space();
    if (text[at] !== ':') throw new Stop(at, 'expected ":" after the property name');
    at++;
    value();
  };
  const value = (): void => {
    space();
    const char = text[at];
    if (char === '{') return members('}', property, 'the property value');
    if (char === '[') return members(']', value, 'the value');
    if (char === '"') {
      if (!match(STRING)) throw new Stop(at, 'expected a string in double quotes, closed on the same line, with valid escapes');
      return;
    }
    if (match(NUMBER) || match(LITERAL)) return;
    throw new Stop(at, at >= text.length ? 'expected a value, found the end of the file' : 'expected a value (an object, array, string in double quotes, number, true, false or null)');
  };
  try {
    value();
    space();
    if (at < text.length) throw new Stop(at, 'expected the end of the file after the value');
    return undefined;
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    const before = text.slice(0, error.offset).split('\n');
    return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1, problem: error.problem };
  }
}
