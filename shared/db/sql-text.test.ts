import { describe, expect, it } from 'vitest';
import { isBlankSql, namedParameters } from './sql-text';

describe('namedParameters', () => {
  it('lists each @name once, in order of first use', () => {
    expect(namedParameters('SELECT a FROM t WHERE b = @b AND c IN (@c1, @c2) OR b = @b')).toEqual(['b', 'c1', 'c2']);
  });

  it('ignores quoted text, comments and @@ system names', () => {
    const sql = `SELECT '@notA', 'it''s @notB', "@notC", [@notD], \`@notE\`, @@ROWCOUNT -- @notF
      /* @notG
         @notH */ FROM t WHERE x = @real`;
    expect(namedParameters(sql)).toEqual(['real']);
  });

  it('ignores an @ that starts no identifier', () => {
    expect(namedParameters('SELECT @ AS a, @1 AS b, @_ok AS c')).toEqual(['_ok']);
  });
});

describe('isBlankSql', () => {
  it('accepts whitespace, semicolons and comments only', () => {
    expect(isBlankSql('')).toBe(true);
    expect(isBlankSql(' ;\n -- done\n /* really */ ;')).toBe(true);
    expect(isBlankSql('; SELECT 1')).toBe(false);
    expect(isBlankSql("; ''")).toBe(false);
  });
});
