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
