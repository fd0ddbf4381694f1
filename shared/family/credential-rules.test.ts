import { describe, expect, it } from 'vitest';
import { COMMON_PINS } from './common-pins';
import { checkPassword, checkPin } from './credential-rules';

describe('checkPin', () => {
  it('accepts 6 to 12 digits that are not weak', () => {
    expect(checkPin('284915')).toEqual({ ok: true });
    expect(checkPin('284915730641')).toEqual({ ok: true });
    expect(checkPin('0284915')).toEqual({ ok: true });
  });

  it('refuses 5 and 13 digits, and anything but ASCII digits', () => {
    expect(checkPin('28491')).toEqual({ ok: false, rule: 'too_short' });
    expect(checkPin('')).toEqual({ ok: false, rule: 'too_short' });
    expect(checkPin('2849157306418')).toEqual({ ok: false, rule: 'too_long' });
    for (const pin of ['28491a', '284 915', '-284915', '２８４９１５', '2849.15', '٢٨٤٩١٥']) {
      expect(checkPin(pin), pin).toEqual({ ok: false, rule: 'not_digits' });
    }
  });

  it('refuses one repeated digit', () => {
    for (const pin of ['000000', '7777777', '999999999999']) expect(checkPin(pin)).toEqual({ ok: false, rule: 'repeated' });
  });

  it('refuses runs up and down, also across 9→0 and 0→9', () => {
    for (const pin of ['123456', '987654', '345678901', '890123', '1234567890', '210987', '098765', '654321098765']) {
      expect(checkPin(pin), pin).toEqual({ ok: false, rule: 'sequence' });
    }
    // Almost-runs are not runs.
    expect(checkPin('123457')).not.toEqual({ ok: false, rule: 'sequence' });
    expect(checkPin('135792')).toEqual({ ok: true });
  });

  it('refuses the common PINs', () => {
    for (const pin of ['696969', '112233', '159753', '147258', '8675309', '01011990', '123321']) {
      expect(checkPin(pin), pin).toEqual({ ok: false, rule: 'common' });
    }
    for (const pin of COMMON_PINS) expect(checkPin(pin).ok, pin).toBe(false);
  });
});

describe('checkPassword', () => {
  it('accepts 8 to 128 characters that are not common', () => {
    expect(checkPassword('violet-kangaroo')).toEqual({ ok: true });
    expect(checkPassword('Zq8#vLx2')).toEqual({ ok: true });
    expect(checkPassword('x'.repeat(127) + 'y')).toEqual({ ok: true });
  });

  it('refuses 7 and 129 characters, counting characters rather than UTF-16 units', () => {
    expect(checkPassword('Zq8#vLx')).toEqual({ ok: false, rule: 'too_short' });
    expect(checkPassword('x'.repeat(128) + 'y')).toEqual({ ok: false, rule: 'too_long' });
    // 8 emoji are 16 UTF-16 units but 8 characters; 129 of them are over the limit.
    expect(checkPassword('🦊'.repeat(8))).toEqual({ ok: true });
    expect(checkPassword('🦊'.repeat(129))).toEqual({ ok: false, rule: 'too_long' });
    // "é" decomposed is two code points; after NFC it is one, so this is 7 characters.
    expect(checkPassword('e\u0301'.repeat(7))).toEqual({ ok: false, rule: 'too_short' });
  });

  it('refuses common passwords in any case', () => {
    for (const password of ['password', 'PassWord', 'iloveyou', 'ILOVEYOU', 'sunshine', 'baseball', 'qwertyuiop', '12345678']) {
      expect(checkPassword(password), password).toEqual({ ok: false, rule: 'common' });
    }
  });

  it('refuses the username itself, in any case', () => {
    expect(checkPassword('mia.lund.2015', 'Mia.Lund.2015')).toEqual({ ok: false, rule: 'matches_username' });
    expect(checkPassword('MIA.LUND.2015', 'mia.lund.2015')).toEqual({ ok: false, rule: 'matches_username' });
    expect(checkPassword('mia.lund.2016', 'mia.lund.2015')).toEqual({ ok: true });
    expect(checkPassword('mia.lund.2015')).toEqual({ ok: true });
  });
});
