import { describe, expect, it } from 'vitest';
import { canonicalEmail, canonicalPhone, MAX_EMAIL_LENGTH } from './contact-address';

describe('canonicalEmail', () => {
  it('gives every spelling of one address one form', () => {
    for (const spelling of ['Mia.Lund@Example.ORG', ' mia.lund@example.org ', 'MIA.LUND@EXAMPLE.ORG\t']) {
      expect(canonicalEmail(spelling), JSON.stringify(spelling)).toBe('mia.lund@example.org');
    }
    // Composed and decomposed forms of one letter are one address.
    expect(canonicalEmail('Jose\u0301@example.org')).toBe(canonicalEmail('jos\u00e9@example.org'));
  });

  it('refuses what is not one address', () => {
    for (const bad of ['', '   ', 'no-at-sign', 'a@b@c', 'mia lund@example.org', '@example.org', 'mia@', `${'a'.repeat(MAX_EMAIL_LENGTH)}@x.org`]) {
      expect(canonicalEmail(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });
});

describe('canonicalPhone', () => {
  it('writes numbers in E.164', () => {
    for (const spelling of ['+1 (555) 010-4477', '+1.555.010.4477', '+15550104477', ' +1 555 010 4477 ', '＋１５５５０１０４４７７']) {
      expect(canonicalPhone(spelling), JSON.stringify(spelling)).toBe('+15550104477');
    }
  });

  it('refuses what is not an international number', () => {
    for (const bad of ['5550104477', '+0123456789', '+1', '+1234567890123456', '+1555abc4477', '']) {
      expect(canonicalPhone(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });
});
