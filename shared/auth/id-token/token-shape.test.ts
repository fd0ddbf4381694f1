import { describe, expect, it } from 'vitest';
import { MAX_ID_TOKEN_BYTES, tokenShapeProblem } from './token-shape';

describe('tokenShapeProblem', () => {
  it('lets a compact JWS through', () => {
    expect(tokenShapeProblem('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['two segments', 'a.b'],
    ['four segments', 'a.b.c.d'],
    ['an empty signature', 'a.b.'],
    ['an empty header', '.b.c'],
    ['padding', 'a.b.c='],
    ['a space', 'a.b .c'],
    ['a newline', 'a.b.c\n'],
    ['the standard base64 alphabet', 'a+.b/.c'],
    ['non-ASCII', 'a.bé.c'],
  ])('refuses %s as malformed', (_label, token) => {
    expect(tokenShapeProblem(token)).toBe('malformed');
  });

  it('refuses anything over the size cap before looking at it', () => {
    const segment = 'a'.repeat(MAX_ID_TOKEN_BYTES);
    expect(tokenShapeProblem(`${segment}.b.c`)).toBe('oversized');
    expect(tokenShapeProblem(`${'a'.repeat(MAX_ID_TOKEN_BYTES - 4)}.b.c`)).toBeUndefined();
    expect(tokenShapeProblem(' '.repeat(MAX_ID_TOKEN_BYTES + 1))).toBe('oversized');
  });
});
