import { describe, expect, it } from 'vitest';
import { isProblem } from '../errors/problem';
import { queryFlagParameter, readQueryFlag } from './query-flag';

describe('a query flag', () => {
  const read = (search: string) => readQueryFlag(new URLSearchParams(search), 'erase');

  it('is false when absent, and reads exactly true or false', () => {
    expect(read('')).toBe(false);
    expect(read('erase=false')).toBe(false);
    expect(read('erase=true')).toBe(true);
  });

  it('refuses any other spelling with invalid_request naming the flag, never the value', () => {
    for (const search of ['erase=TRUE', 'erase=1', 'erase=yes', 'erase=']) {
      const answer = read(search);
      expect(isProblem(answer) && answer.code, search).toBe('invalid_request');
      expect(isProblem(answer) && answer.detail).toBe('erase: true or false.');
    }
  });

  it('is documented as the boolean it reads, with its spellings', () => {
    const parameter = queryFlagParameter('erase', 'Erase too.');
    expect(parameter.schema).toEqual({ type: 'boolean', default: false });
    expect(parameter.description).toContain('`true` or `false`');
  });
});
