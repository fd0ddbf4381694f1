import { describe, expect, it } from 'vitest';
import { REDACTION_MARKER } from '../logging/scrub';
import { InvalidAuditEntryError, keyWords, toAuditRowValues } from './audit-entry';
import type { AuditEntry } from './audit-event';

const base: AuditEntry = { eventType: 'authz_change', outcome: 'success', actorUserId: 'admin-1', subjectUserId: 'user-1' };

const refusal = (entry: unknown): string => {
  try {
    toAuditRowValues(entry as AuditEntry);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidAuditEntryError);
    return (error as Error).message;
  }
  throw new Error('the entry was accepted');
};

describe('toAuditRowValues', () => {
  it('fills absent fields with null and serialises flat details', () => {
    expect(toAuditRowValues({ ...base, details: { from: 'member', to: 'admin', sessionsRevoked: 2, forced: true } })).toEqual({
      eventType: 'authz_change',
      outcome: 'success',
      actorUserId: 'admin-1',
      subjectUserId: 'user-1',
      targetType: null,
      targetId: null,
      reason: null,
      traceId: null,
      details: '{"from":"member","to":"admin","sessionsRevoked":2,"forced":true}',
    });
  });

  it.each([
    'pin',
    'newPin',
    'PIN',
    'pinHash',
    'password',
    'passwordHash',
    'idToken',
    'sessionToken',
    'pushToken',
    'jwt',
    'email',
    'e_mail',
    'eMail',
    'phone',
    'phoneNumber',
    'phone_number',
    'username',
    'userName',
    'user_name',
    'childName',
    'body',
    'requestBody',
    'hash',
    'secret',
    'clientSecret',
    'connectionString',
    'ipAddress',
    'birthDate',
  ])('refuses the details key %s', (key) => {
    expect(refusal({ ...base, details: { [key]: 'x' } })).toContain(`"${key}"`);
  });

  it.each(['durationSeconds', 'announcementId', 'role', 'from', 'to', 'status', 'section', 'accountType', 'attempts', 'mapping', 'spinCount'])(
    'accepts the details key %s',
    (key) => {
      expect(() => toAuditRowValues({ ...base, details: { [key]: 1 } })).not.toThrow();
    },
  );

  it('refuses nested details, unknown fields, event types and reasons, and never echoes values', () => {
    expect(refusal({ ...base, details: { nested: { pin: '123456' } } })).toBe('Invalid audit entry: details.nested');
    expect(refusal({ ...base, details: { list: ['a'] } })).toBe('Invalid audit entry: details.list');
    expect(refusal({ ...base, eventType: 'user_deleted' })).toBe('Invalid audit entry: eventType');
    expect(refusal({ ...base, reason: 'because' })).toBe('Invalid audit entry: reason');
    expect(refusal({ ...base, outcome: 'partial' })).toBe('Invalid audit entry: outcome');
    expect(refusal({ ...base, email: 'a@b.example' })).not.toContain('a@b.example');
  });

  it('refuses long detail strings and too many keys', () => {
    expect(refusal({ ...base, details: { note: 'x'.repeat(201) } })).toMatch(/longer than 200/);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, index]));
    expect(refusal({ ...base, details: many })).toMatch(/more than 20 keys/);
  });

  it('refuses id fields that look like a secret or personal data', () => {
    expect(refusal({ ...base, targetId: 'kid@example.com' })).toMatch(/targetId looks like a secret/);
    expect(refusal({ ...base, actorUserId: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.sig' })).toMatch(/actorUserId/);
  });

  it('scrubs secrets out of detail strings', () => {
    const values = toAuditRowValues({ ...base, details: { section: 'token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc here' } });
    expect(JSON.parse(values.details ?? '{}')).toEqual({ section: `token ${REDACTION_MARKER} here` });
  });
});

describe('keyWords', () => {
  it('splits camelCase, PascalCase acronyms and snake_case, and joins neighbours', () => {
    expect(keyWords('PINHash')).toEqual(['pin', 'hash', 'pinhash', 'pinhash']);
    expect(keyWords('userName')).toEqual(['user', 'name', 'username', 'username']);
    expect(keyWords('e_mail_address')).toEqual(['e', 'mail', 'address', 'email', 'mailaddress', 'emailaddress']);
  });
});
