import { describe, expect, it } from 'vitest';
import { checkUsername, isChildUsername, readSubmittedUsername, usernameIdentity } from './child-username';

describe('checkUsername', () => {
  it('accepts 3 to 32 characters of a-z 0-9 . _ - and returns the lower-case form', () => {
    expect(checkUsername('abc')).toEqual({ ok: true, username: 'abc' });
    expect(checkUsername('a'.repeat(32))).toEqual({ ok: true, username: 'a'.repeat(32) });
    expect(checkUsername('Mia.Lund_07-x')).toEqual({ ok: true, username: 'mia.lund_07-x' });
    expect(checkUsername('ANNA')).toEqual({ ok: true, username: 'anna' });
  });

  it('refuses lengths outside 3..32', () => {
    expect(checkUsername('')).toEqual({ ok: false, rule: 'too_short' });
    expect(checkUsername('ab')).toEqual({ ok: false, rule: 'too_short' });
    expect(checkUsername('a'.repeat(33))).toEqual({ ok: false, rule: 'too_long' });
  });

  it('refuses characters outside the set, including look-alikes that lower-case into it', () => {
    for (const name of ['mia lund', 'mia@home', 'mia+1', 'åsa', ' mia', 'mia ', 'mi\u0430', '\u212Aid', 'mia/1', 'ｋｉｄ', 'ki\u200bd']) {
      expect(checkUsername(name), name).toEqual({ ok: false, rule: 'invalid_characters' });
    }
  });

  it('refuses separators at either end or side by side', () => {
    for (const name of ['.mia', 'mia.', '_mia', 'mia_', '-mia', 'mia-', '...']) {
      expect(checkUsername(name), name).toEqual({ ok: false, rule: 'separator_at_edge' });
    }
    for (const name of ['mia..lund', 'mia._lund', 'mia-_lund', 'mia--lund']) {
      expect(checkUsername(name), name).toEqual({ ok: false, rule: 'consecutive_separators' });
    }
  });
});

describe('isChildUsername', () => {
  it('is true exactly for what checkUsername returns', () => {
    const samples = ['abc', 'a.b', 'mia.lund_07-x', 'a'.repeat(32), 'ANNA', 'ab', 'a'.repeat(33), 'kid ', ' kid', 'ab.', 'a..b', 'ｋｉｄ', ''];
    for (const sample of samples) {
      const checked = checkUsername(sample);
      const stored = checked.ok && checked.username === sample;
      expect(isChildUsername(sample), JSON.stringify(sample)).toBe(stored);
      if (checked.ok) expect(isChildUsername(checked.username)).toBe(true);
    }
  });
});

describe('usernameIdentity', () => {
  it('reads every spelling of one name as that name', () => {
    for (const spelling of ['kid', 'KID', 'KID ', ' kid', '\tkid\n', 'ｋｉｄ', 'ＫＩＤ', '\u212Aid', 'k\u200bi\u00add', '\ufeffkid']) {
      expect(usernameIdentity(spelling), JSON.stringify(spelling)).toBe('kid');
    }
  });

  it('is the stored form of every valid name, and keeps different names apart', () => {
    for (const name of ['mia.lund', 'Mia.Lund_07-x', 'a'.repeat(32)]) {
      const checked = checkUsername(name);
      expect(checked.ok && usernameIdentity(name) === checked.username).toBe(true);
    }
    expect(usernameIdentity('mia.lund')).not.toBe(usernameIdentity('mia.lunda'));
    expect(usernameIdentity('mia lund')).not.toBe(usernameIdentity('mialund'));
  });
});

describe('readSubmittedUsername', () => {
  it('looks up valid names in their stored form, case folded', () => {
    expect(readSubmittedUsername('Mia.LUND')).toEqual({ identity: 'mia.lund', lookup: 'mia.lund' });
  });

  it('never looks up a spelling that is not a valid name, but throttles it under the name it reads as', () => {
    for (const spelling of ['KID ', ' kid', 'ｋｉｄ', '\u212Aid', 'ki\u200bd']) {
      expect(readSubmittedUsername(spelling), JSON.stringify(spelling)).toEqual({ identity: 'kid', lookup: null });
    }
    expect(readSubmittedUsername('x')).toEqual({ identity: 'x', lookup: null });
  });
});
