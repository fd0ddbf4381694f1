import { describe, expect, it } from 'vitest';
import { REDACTION_MARKER } from './scrub';
import { redactSecretFields } from './secret-fields';

describe('redactSecretFields', () => {
  it.each(['token', 'pin', 'password', 'secret', 'hash', 'connectionString', 'authorization', 'Authorization', 'set-cookie', 'access_token', 'apiKey', 'username', 'body', 'headers'])(
    'censors %s whatever it holds',
    (key) => {
      for (const value of ['acs', 'x', 0, true, { a: 1 }, ['a']]) {
        expect(redactSecretFields({ [key]: value })).toEqual({ [key]: REDACTION_MARKER });
      }
    },
  );

  it('keeps what a contact field holds when it cannot be the contact: a provider name, a flag, null', () => {
    const providers = { push: 'expo', sms: 'acs', email: 'acs' };
    expect(redactSecretFields({ providers })).toEqual({ providers });
    const preferences = { push: true, sms: false, email: true, phone: null, phoneNumber: 'outbox' };
    expect(redactSecretFields({ preferences })).toEqual({ preferences });
  });

  it.each([
    ['email', 'canary@localhost'],
    ['email', ['canary@example.org']],
    ['email', { address: 'canary@example.org' }],
    ['phone', '5550001234'],
    ['phone', 5550001234],
    ['phoneNumber', '+1 555 000 1234'],
  ])('censors %s holding %j', (key, value) => {
    expect(redactSecretFields({ [key]: value })).toEqual({ [key]: REDACTION_MARKER });
  });

  it('walks arrays, arrays of arrays and objects in them', () => {
    const value = { batches: [[{ pin: '1234' }, { ok: 1 }], [{ nested: [{ token: 't' }] }]] };
    expect(redactSecretFields(value)).toEqual({
      batches: [[{ pin: REDACTION_MARKER }, { ok: 1 }], [{ nested: [{ token: REDACTION_MARKER }] }]],
    });
  });

  it('reaches eight levels below the line and prints deeper objects as [Object]', () => {
    const deep = { l1: { l2: { l3: { l4: { l5: { l6: { l7: { l8: { pin: '1234', l9: { secretish: 'canary' } } } } } } } } } };
    const redacted = JSON.stringify(redactSecretFields(deep));
    expect(redacted).toContain('"l8":{"pin":"[REDACTED]","l9":"[Object]"}');
    expect(redacted).not.toContain('canary');
  });

  it('ends on a cyclic object, censoring what it reaches', () => {
    const node: Record<string, unknown> = { token: 'canary', name: 'n' };
    node.self = node;
    const redacted = redactSecretFields(node);
    expect(JSON.stringify(redacted)).not.toContain('canary');
    expect((redacted as { token: string }).token).toBe(REDACTION_MARKER);
  });

  it('bounds the walk of a huge graph', () => {
    const wide = { items: Array.from({ length: 5000 }, (_, index) => ({ index, token: 'canary' })) };
    const redacted = JSON.stringify(redactSecretFields(wide));
    expect(redacted).not.toContain('canary');
    expect(redacted).toContain('"[Object]"');
  });

  it('censors the own properties of errors and class instances, as JSON.stringify prints them', () => {
    class Credentials {
      constructor(
        readonly user = 'u-1',
        readonly password = 'canary',
      ) {}
    }
    const failure = Object.assign(new Error('request failed'), { request: { headers: { authorization: 'Bearer canary' } } });
    const redacted = JSON.stringify(redactSecretFields({ credentials: new Credentials(), failure }));
    expect(redacted).not.toContain('canary');
    expect(redacted).toContain('"user":"u-1"');
  });

  it('censors what toJSON returns', () => {
    const view = { toJSON: () => ({ visible: 1, sessionToken: 'canary' }) };
    const when = new Date('2026-01-02T03:04:05.000Z');
    expect(JSON.stringify(redactSecretFields({ view, when }))).toBe('{"view":{"visible":1,"sessionToken":"[REDACTED]"},"when":"2026-01-02T03:04:05.000Z"}');
  });

  it("never changes the caller's objects and returns them as they are when nothing is secret", () => {
    const clean = { a: 1, nested: { b: [1, 2, { c: 'x' }] } };
    expect(redactSecretFields(clean)).toBe(clean);
    const secret = { a: 1, nested: { pin: '1234' }, other: { d: 1 } };
    const redacted = redactSecretFields(secret);
    expect(secret.nested.pin).toBe('1234');
    expect(redacted.other).toBe(secret.other);
  });

  it('leaves the skipped top-level key to its serializer, but not the same key further down', () => {
    const error = new Error('x');
    const value = { error, nested: { error: { token: 't' } } };
    const redacted = redactSecretFields(value, 'error');
    expect(redacted.error).toBe(error);
    expect(redacted.nested.error).toEqual({ token: REDACTION_MARKER });
  });
});
