import { describe, expect, it } from 'vitest';
import { hasLoneSurrogate, loneSurrogateErrors } from './well-formed-strings';

describe('hasLoneSurrogate', () => {
  it('finds a high or low surrogate without its pair, anywhere, and passes pairs and plain text', () => {
    for (const text of ['a\ud800b', 'a\udbffb', '\udc00', 'x\ud83d', '\ude00x', '\ude00\ud83d']) expect(hasLoneSurrogate(text), JSON.stringify(text)).toBe(true);
    for (const text of ['', 'abc', 'a\ufffdb', 'caf\u00e9', '\ud83d\ude00', 'ｋｉｄ']) expect(hasLoneSurrogate(text), JSON.stringify(text)).toBe(false);
  });
});

describe('loneSurrogateErrors', () => {
  it('points at each string that holds one, in document order, without its value', () => {
    const body = JSON.parse('{"title":"canary-a\\ud800b","ok":"fine","channels":["push","canary-x\\udfff"],"deep":{"list":[{"v":"canary\\ud801"}]}}') as unknown;
    const errors = loneSurrogateErrors(body);
    expect(errors.map((entry) => [entry.pointer, entry.code])).toEqual([
      ['/title', 'lone_surrogate'],
      ['/channels/1', 'lone_surrogate'],
      ['/deep/list/0/v', 'lone_surrogate'],
    ]);
    expect(JSON.stringify(errors)).not.toContain('canary');
    expect(errors.every((entry) => !hasLoneSurrogate(entry.detail))).toBe(true);
  });

  it('reports a member name that holds one at its object, never spelling the name', () => {
    const body = JSON.parse('{"outer":{"n\\ud800":"value","fine":"\\udc00"}}') as unknown;
    expect(loneSurrogateErrors(body).map((entry) => entry.pointer)).toEqual(['/outer', '/outer/fine']);
  });

  it('finds nothing in well-formed bodies and scalars, and escapes pointer segments', () => {
    expect(loneSurrogateErrors({ a: ['b', { c: '\ud83d\ude00' }], n: 1, t: true, z: null })).toEqual([]);
    expect(loneSurrogateErrors(42)).toEqual([]);
    expect(loneSurrogateErrors('\ud800').map((entry) => entry.pointer)).toEqual(['']);
    expect(loneSurrogateErrors({ 'a/b~c': '\ud800' }).map((entry) => entry.pointer)).toEqual(['/a~1b~0c']);
  });

  it('walks a body nested thousands of levels deep without recursion, and stops at 20 entries', () => {
    const deep = JSON.parse(`${'['.repeat(8000)}"\\ud800"${']'.repeat(8000)}`) as unknown;
    const [entry] = loneSurrogateErrors(deep);
    expect(entry?.pointer === '/0'.repeat(8000)).toBe(true);
    expect(loneSurrogateErrors(Array.from({ length: 500 }, () => '\ud800'))).toHaveLength(20);
  });
});
