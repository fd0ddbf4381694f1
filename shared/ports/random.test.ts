import { describe, expect, it } from 'vitest';
import { cryptoRandom, sequentialRandom } from './random';

describe('cryptoRandom', () => {
  it('makes version 4 UUIDs and byte arrays of the asked length that differ each call', () => {
    const uuid = cryptoRandom.uuid();
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(cryptoRandom.uuid()).not.toBe(uuid);
    const bytes = cryptoRandom.bytes(32);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(bytes).toHaveLength(32);
    expect(Buffer.from(cryptoRandom.bytes(32)).equals(Buffer.from(bytes))).toBe(false);
  });
});

describe('sequentialRandom', () => {
  it('is predictable: counting UUIDs and a repeatable byte stream per seed', () => {
    const first = sequentialRandom(7);
    const second = sequentialRandom(7);
    expect([first.uuid(), first.uuid()]).toEqual([
      '00000000-0000-4000-8000-000000000001',
      '00000000-0000-4000-8000-000000000002',
    ]);
    expect(Array.from(first.bytes(8))).toEqual(Array.from(second.bytes(8)));
    expect(Array.from(sequentialRandom(8).bytes(8))).not.toEqual(Array.from(sequentialRandom(7).bytes(8)));
  });
});
