import { describe, expect, it } from 'vitest';
import { createAnnouncementBody, updateAnnouncementBody } from '../announcement-workflow/announcement-request-schemas';
import { USERNAME_RULE_DETAIL } from '../children/child-username';
import { childSessionBody } from '../auth/sign-in-request-schemas';
import { createChildBody, updateChildBody } from '../family/child-request-schemas';
import type { Validator } from '../validation/lazy-schema';
import { fieldErrorsOf, jsonPointer, summarizeFieldErrors } from './field-errors';

const CANARY = 'canary-9f3a1c';

function errorsOf<T>(schema: Validator<T>, input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected a failure');
  const errors = fieldErrorsOf(result.error.issues, input);
  const summary = summarizeFieldErrors(errors);
  // Never the submitted value, nor the name of an unknown field.
  expect(JSON.stringify(errors) + summary).not.toContain(CANARY);
  return { errors, summary };
}

describe('errors that point at the field', () => {
  it('a PIN sent as a number points at /pin', () => {
    const { errors, summary } = errorsOf(createChildBody, { username: CANARY, pin: 482915, scopes: [] });
    expect(errors).toEqual([{ pointer: '/pin', code: 'invalid_type', detail: 'Expected a string.' }]);
    expect(summary).toBe('Invalid body: /pin: Expected a string.');
  });

  it('both pin and password: the union says to choose', () => {
    const { errors } = errorsOf(createChildBody, { username: CANARY, pin: CANARY, password: CANARY, scopes: [] });
    expect(errors).toEqual([{ pointer: '', code: 'invalid', detail: 'Send either pin or password, not both.' }]);
    expect(errorsOf(childSessionBody, { username: CANARY, pin: CANARY, password: CANARY }).errors[0]?.detail).toBe('Send either pin or password, not both.');
  });

  it('no scopes: /scopes is required', () => {
    expect(errorsOf(createChildBody, { username: CANARY, pin: CANARY }).errors).toEqual([{ pointer: '/scopes', code: 'required', detail: 'Required.' }]);
  });

  it('neither pin nor password, and no scopes: both said', () => {
    expect(errorsOf(createChildBody, { username: CANARY }).errors).toEqual([
      { pointer: '', code: 'invalid', detail: 'Send either pin or password, not both.' },
      { pointer: '/scopes', code: 'required', detail: 'Required.' },
    ]);
  });

  it('an unknown scope points at its item and lists the allowed ones', () => {
    expect(errorsOf(createChildBody, { username: 'sam', pin: '1', scopes: ['announcements', CANARY] }).errors).toEqual([
      { pointer: '/scopes/1', code: 'invalid_value', detail: 'One of: announcements, events, groups, media.' },
    ]);
  });

  it('duplicate channels, an empty PATCH, a too long title, an unknown field', () => {
    expect(errorsOf(createAnnouncementBody, { title: 'T', body: 'B', channels: ['push', 'push'] }).errors).toEqual([
      { pointer: '/channels', code: 'invalid', detail: 'Channels must be unique.' },
    ]);
    expect(errorsOf(updateChildBody, {}).errors).toEqual([{ pointer: '', code: 'invalid', detail: 'Nothing to change.' }]);
    expect(errorsOf(updateAnnouncementBody, {}).errors).toEqual([{ pointer: '', code: 'invalid', detail: 'Nothing to change.' }]);
    expect(errorsOf(createAnnouncementBody, { title: 'x'.repeat(500) + CANARY, body: 'B', channels: ['push'] }).errors[0]).toMatchObject({ pointer: '/title', code: 'too_big' });
    expect(errorsOf(updateChildBody, { [`${CANARY}@example.com`]: true }).errors[0]).toEqual({
      pointer: '',
      code: 'unknown_field',
      detail: 'Unknown fields are not allowed; remove them.',
    });
  });

  it('an unknown member points at itself, one entry each, when its name is a plain name', () => {
    const { errors, summary } = errorsOf(createChildBody, { username: 'sam', pin: '1', scopes: [], nickname: CANARY });
    expect(errors).toEqual([{ pointer: '/nickname', code: 'unknown_field', detail: 'Unknown field; remove it.' }]);
    expect(summary).toBe('Invalid body: /nickname: Unknown field; remove it.');
    expect(errorsOf(updateChildBody, { status: 'active', nickname: 1, 'favourite.colour': 2 }).errors).toEqual([
      { pointer: '/nickname', code: 'unknown_field', detail: 'Unknown field; remove it.' },
      { pointer: '/favourite.colour', code: 'unknown_field', detail: 'Unknown field; remove it.' },
    ]);
    // A name that could be data sent in the wrong place (an address, digits, a long text) is pointed at through its object.
    expect(
      errorsOf(createAnnouncementBody, { title: 'T', body: 'B', channels: ['push'], [`${CANARY}@example.com`]: 1, '730582': 2, nickname: 3 }).errors,
    ).toEqual([
      { pointer: '', code: 'unknown_field', detail: 'Unknown fields are not allowed; remove them.' },
      { pointer: '/nickname', code: 'unknown_field', detail: 'Unknown field; remove it.' },
    ]);
  });

  it('every failing field of a new child, the username rule\'s too', () => {
    const { errors } = errorsOf(createChildBody, { username: 'a', pin: 482915, scopes: CANARY });
    expect(errors).toEqual([
      { pointer: '/username', code: 'too_small', detail: USERNAME_RULE_DETAIL },
      { pointer: '/pin', code: 'invalid_type', detail: 'Expected a string.' },
      { pointer: '/scopes', code: 'invalid_type', detail: 'Expected an array.' },
    ]);
    expect(errorsOf(createChildBody, { username: `${CANARY}!`, pin: '1', scopes: [] }).errors).toEqual([
      { pointer: '/username', code: 'invalid_format', detail: USERNAME_RULE_DETAIL },
    ]);
    // Over the schema's loose bound too, the rule is what the answer says.
    expect(errorsOf(createChildBody, { username: 'k'.repeat(70), password: CANARY, scopes: [] }).errors).toEqual([
      { pointer: '/username', code: 'too_big', detail: USERNAME_RULE_DETAIL },
    ]);
    // Both pin and password with a bad username: the choice and the username, which every form needs.
    expect(errorsOf(createChildBody, { username: '-xy', pin: CANARY, password: CANARY, scopes: [] }).errors).toEqual([
      { pointer: '', code: 'invalid', detail: 'Send either pin or password, not both.' },
      { pointer: '/username', code: 'invalid_format', detail: USERNAME_RULE_DETAIL },
    ]);
    expect(createChildBody.safeParse({ username: 'Sam.K', pin: '1', scopes: [] }).success).toBe(true);
  });

  it('one entry per field, several fields at once', () => {
    const { errors, summary } = errorsOf(createAnnouncementBody, { title: 5, body: '', channels: [] });
    expect(errors.map((entry) => entry.pointer)).toEqual(['/title', '/body', '/channels']);
    expect(summary).toBe('Invalid body: /title: Expected a string. /body: At least 1 character. /channels: At least 1 item.');
  });

  it('escapes pointers as RFC 6901 says', () => {
    expect(jsonPointer(['a/b', 'c~d', 0])).toBe('/a~1b/c~0d/0');
    expect(jsonPointer([])).toBe('');
  });
});
