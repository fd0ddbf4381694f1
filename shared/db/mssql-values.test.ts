import { describe, expect, it } from 'vitest';
import { normalizeMssqlRow, toMssqlParameter } from './mssql-values';

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

describe('toMssqlParameter', () => {
  it('declares one type per kind of value, never sized to the value, so SQL Server caches one plan per statement', () => {
    expect(toMssqlParameter('a', 'x')).toEqual({ type: { kind: 'nvarchar', length: 4000 }, value: 'x' });
    expect(toMssqlParameter('a', 'x'.repeat(4000))).toEqual({ type: { kind: 'nvarchar', length: 4000 }, value: 'x'.repeat(4000) });
    expect(toMssqlParameter('a', 'x'.repeat(4001)).type).toEqual({ kind: 'nvarchar', length: 'max' });
    expect(toMssqlParameter('a', null)).toEqual({ type: { kind: 'nvarchar', length: 4000 }, value: null });
    expect(toMssqlParameter('a', 7)).toEqual({ type: { kind: 'int' }, value: 7 });
    expect(toMssqlParameter('a', -2147483648).type).toEqual({ kind: 'int' });
    expect(toMssqlParameter('a', 2147483648)).toEqual({ type: { kind: 'bigint' }, value: 2147483648 });
    expect(toMssqlParameter('a', 0.5)).toEqual({ type: { kind: 'float' }, value: 0.5 });
  });

  it('binds booleans as 1/0 and refuses what SQL cannot hold', () => {
    expect(toMssqlParameter('a', true)).toEqual({ type: { kind: 'int' }, value: 1 });
    expect(toMssqlParameter('a', false)).toEqual({ type: { kind: 'int' }, value: 0 });
    expect(() => toMssqlParameter('a', Number.POSITIVE_INFINITY)).toThrow(/@a is not a finite number/);
    expect(() => toMssqlParameter('a', Number.NaN)).toThrow(/@a is not a finite number/);
  });
});
