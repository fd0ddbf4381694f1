import { describe, expect, it } from 'vitest';
import { REDACTION_MARKER, scrubSecrets } from './scrub';

const jwt =
  'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1c2VyLTEiLCJlbWFpbCI6ImFAYi5jbyJ9.c2lnbmF0dXJlLWJ5dGVzLWhlcmU';

describe('scrubSecrets', () => {
  it.each([
    ['a JWT', `token was ${jwt} here`],
    ['a JWT header segment alone', 'header eyJhbGciOiJSUzI1NiJ9 seen'],
    ['a bearer token', 'Authorization: Bearer abc.DEF-123_xyz~+/=='],
    ['an Argon2 hash', 'hash $argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo end'],
    ['an e-mail address', 'mail parent.one+kids@example.co.uk sent'],
    ['an international phone number', 'call +1 (555) 123-4567 now'],
    ['an E.164 phone number', 'sms to +447911123456'],
    ['a national phone number', 'call 555.123.4567'],
    ['an Expo push token', 'device ExponentPushToken[xxxxAAAAbbbb555] gone'],
  ])('replaces %s', (_name, text) => {
    const scrubbed = scrubSecrets(text);
    expect(scrubbed).toContain(REDACTION_MARKER);
    expect(scrubbed).not.toMatch(/eyJhbGci|abc\.DEF|argon2id\$v|parent\.one|555|7911123456|PushToken/);
  });

  it('keeps the key of a connection-string secret and hides its value', () => {
    expect(scrubSecrets('DefaultEndpointsProtocol=https;AccountName=x;AccountKey=c2VjcmV0a2V5Cg==;')).toBe(
      `DefaultEndpointsProtocol=https;AccountName=x;AccountKey=${REDACTION_MARKER};`,
    );
  });

  it('leaves ordinary log content alone', () => {
    const line =
      '{"timestamp":"2026-11-21T05:36:37.123Z","traceId":"4bf92f3577b34da6a3ce929d0e0e4736","durationMs":1234,"endpoint":"GET /api/v1/me","userId":"3f0c1a9e-2b4d-4c8e-9a7b-1d2e3f4a5b6c"}';
    expect(scrubSecrets(line)).toBe(line);
  });

  it('keeps a JSON line valid JSON', () => {
    const line = JSON.stringify({ message: `failed for ${jwt} and a@b.co`, nested: { phone: '+15551234567' } });
    expect(() => JSON.parse(scrubSecrets(line))).not.toThrow();
  });
});

describe('scrubSecrets: the checks that skip a pattern never skip a secret', () => {
  it.each([
    ['a bearer token in capitals', 'AUTHORIZATION: BEARER CANARYTOKEN123'],
    ['a bearer token in mixed case', 'auth bEaReR canarytoken123'],
    ['a JWT at the start of the text', 'eyJhbGciOiJSUzI1NiJ9.canary'],
    ['an Expo push token without the "Exponent" prefix', 'device ExpoPushToken[canary555] gone'],
    ['an e-mail address next to a scoped package path', 'at x (/app/node_modules/@azure/core/a.js:1:2) canary.kid@example.org'],
    ['an e-mail address right after another', 'canary@example.org,canary2@example.org'],
    ['a phone number in a stack trace', 'Error: no route to +44 7911 123456\n    at send (/app/sms.js:1:2)'],
  ])('still replaces %s', (_name, text) => {
    expect(scrubSecrets(text)).not.toMatch(/canary|CANARY|7911|PushToken\[/);
  });

  it('leaves a scoped package path and other @ signs alone', () => {
    const text = 'at x (/app/node_modules/@azure/core-rest-pipeline/dist/index.js:10:3) @mention user@ @@';
    expect(scrubSecrets(text)).toBe(text);
  });

  it('hides all of a connection-string secret that holds an escaped quote, and the line stays JSON', () => {
    const line = JSON.stringify({ note: 'Server=x;Password=canary"quoted\\slash;Database=y' });
    const scrubbed = scrubSecrets(line);
    expect(() => JSON.parse(scrubbed)).not.toThrow();
    expect(JSON.parse(scrubbed)).toEqual({ note: `Server=x;Password=${REDACTION_MARKER};Database=y` });
  });

  /** The e-mail pattern the scan replaced: the scan must replace exactly what it did. */
  const EMAIL_PATTERN = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;

  it('finds exactly the e-mail addresses the regular expression found, in generated text', () => {
    // Deterministic: a small linear congruential generator over pieces that make and break addresses.
    let seed = 42;
    const next = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    const pieces = ['a', 'B7', '.', '-', '_', '%', '+', '@', '@', 'co', '.co', '.c', '.Org', ' ', '"', '/', 'ex-1', '..', '@x'];
    const mismatches: string[] = [];
    for (let sample = 0; sample < 5000; sample += 1) {
      const length = 1 + (next() % 16);
      let text = '';
      for (let index = 0; index < length; index += 1) text += pieces[next() % pieces.length];
      // Only the e-mail step can change text made of these pieces.
      if (scrubSecrets(text) !== text.replace(EMAIL_PATTERN, REDACTION_MARKER)) mismatches.push(text);
    }
    expect(mismatches).toEqual([]);
  });
});
