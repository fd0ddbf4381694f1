import { describe, expect, it } from 'vitest';
import { clientAddress } from './client-address';

describe('clientAddress', () => {
  it('is unknown without trusted hops or without the header', () => {
    expect(clientAddress('203.0.113.7', 0)).toBeNull();
    expect(clientAddress(null, 1)).toBeNull();
  });

  it('takes the entry the nearest trusted proxy wrote, ignoring what the client claimed', () => {
    expect(clientAddress('10.0.0.1, 203.0.113.7', 1)).toBe('203.0.113.7');
    expect(clientAddress('10.0.0.1, 203.0.113.7, 198.51.100.2', 2)).toBe('203.0.113.7');
  });

  it('drops ports and brackets', () => {
    expect(clientAddress('203.0.113.7:52311', 1)).toBe('203.0.113.7');
    expect(clientAddress('[2001:db8::1]:443', 1)).toBe('2001:db8::1');
    expect(clientAddress('2001:db8::1', 1)).toBe('2001:db8::1');
  });

  it('is unknown when fewer entries than trusted hops, or the entry is not an address', () => {
    expect(clientAddress('203.0.113.7', 2)).toBeNull();
    expect(clientAddress('not-an-ip', 1)).toBeNull();
    expect(clientAddress(`${'1,'.repeat(1500)}1`, 1)).toBeNull();
  });
});
