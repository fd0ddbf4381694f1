import * as mssql from 'mssql';
import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { UniqueViolationError } from './database-errors';
import { normalizeMssqlRow, toMssqlValue, translateMssqlError } from './mssql-values';

function requestError(number: number, message = 'server error'): mssql.RequestError {
  const error = new mssql.RequestError(message, 'EREQUEST');
  (error as unknown as { number: number }).number = number;
  return error;
}

describe('normalizeMssqlRow', () => {
  it('turns dates into ISO 8601 UTC strings and bits into 1/0, leaving the rest', () => {
    expect(
      normalizeMssqlRow({
        occurredAt: new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 123)),
        flag: true,
        off: false,
        label: 'x',
        amount: 42,
        missing: null,
      }),
    ).toEqual({ occurredAt: '2024-02-29T23:59:59.123Z', flag: 1, off: 0, label: 'x', amount: 42, missing: null });
  });
});

describe('toMssqlValue', () => {
  it('binds booleans as 1/0 and refuses what SQL cannot hold', () => {
    expect(toMssqlValue('a', true)).toBe(1);
    expect(toMssqlValue('a', false)).toBe(0);
    expect(toMssqlValue('a', 'text')).toBe('text');
    expect(toMssqlValue('a', null)).toBeNull();
    expect(() => toMssqlValue('a', Number.POSITIVE_INFINITY)).toThrow(/@a is not a finite number/);
  });
});

describe('translateMssqlError', () => {
  it('reports a duplicate key as UniqueViolationError', () => {
    for (const number of [2601, 2627]) {
      const original = requestError(number);
      const translated = translateMssqlError(original);
      expect(translated).toBeInstanceOf(UniqueViolationError);
      expect((translated as Error).cause).toBe(original);
    }
  });

  it('reports connection trouble and transient server errors as an unavailable database', () => {
    const cases = [
      new mssql.ConnectionError('Failed to connect', 'ESOCKET'),
      new mssql.RequestError('Timeout: Request failed to complete', 'ETIMEOUT'),
      requestError(40613),
      requestError(1205),
      Object.assign(new Error('Failed to acquire a connection from the pool'), { name: 'TimeoutError' }),
    ];
    for (const original of cases) {
      const translated = translateMssqlError(original);
      expect(translated).toBeInstanceOf(DependencyUnavailableError);
      expect((translated as Error).cause).toBe(original);
    }
  });

  it('passes other errors through unchanged', () => {
    const syntax = requestError(102, "Incorrect syntax near 'FORM'");
    expect(translateMssqlError(syntax)).toBe(syntax);
    const plain = new Error('bug');
    expect(translateMssqlError(plain)).toBe(plain);
  });
});
