import { dictionary } from '@zxcvbn-ts/language-common';
import { describe, expect, it } from 'vitest';
import { COMMON_PINS } from './common-pins';

describe('COMMON_PINS', () => {
  it('holds 100 distinct PINs of 6 to 12 digits', () => {
    expect(COMMON_PINS).toHaveLength(100);
    expect(new Set(COMMON_PINS).size).toBe(100);
    for (const pin of COMMON_PINS) expect(pin).toMatch(/^[0-9]{6,12}$/);
  });

  it('is what its comment says: the first 100 such entries of the ranked common-password list', () => {
    // A newer @zxcvbn-ts/language-common may re-rank; then refresh the list from it.
    const derived = dictionary['passwords-common'].filter((entry) => /^[0-9]{6,12}$/.test(entry)).slice(0, 100);
    expect(COMMON_PINS).toEqual(derived);
  });
});
