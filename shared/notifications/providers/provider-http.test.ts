import { describe, expect, it } from 'vitest';
import { httpFailure, isTransientStatus, retryAfterMs, safeLabel } from './provider-http';

const now = new Date('2025-03-01T12:00:00.000Z');

describe('provider HTTP rules', () => {
  it('reads Retry-After as seconds or as an HTTP date, and ignores nonsense', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '120' }), now)).toBe(120_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sat, 01 Mar 2025 12:00:30 GMT' }), now)).toBe(30_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sat, 01 Mar 2025 11:00:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  it('keeps provider codes that are labels and drops anything that could quote a recipient', () => {
    expect(safeLabel('DeviceNotRegistered')).toBe('DeviceNotRegistered');
    expect(safeLabel('PUSH_TOO_MANY_EXPERIENCE_IDS')).toBe('PUSH_TOO_MANY_EXPERIENCE_IDS');
    for (const unsafe of ['"ExponentPushToken[abc]" is not registered', 'someone@example.test', '+15551234567', '', 42, null, 'x'.repeat(65)]) {
      expect(safeLabel(unsafe)).toBeUndefined();
    }
  });

  it('counts 408, 429 and 5xx as transient, other statuses as permanent', () => {
    expect([408, 429, 500, 503].map(isTransientStatus)).toEqual([true, true, true, true]);
    expect([400, 401, 403, 404, 413].map(isTransientStatus)).toEqual([false, false, false, false, false]);
  });

  it('names a refused request by the provider code, else by its status', () => {
    const answer = { status: 503, headers: new Headers({ 'retry-after': '5' }), text: '' };
    expect(httpFailure(answer, undefined, now)).toEqual({ result: 'provider_error', code: 'http_503', transient: true, retryAfterMs: 5000 });
    expect(httpFailure({ ...answer, status: 400, headers: new Headers() }, 'BadRequest', now)).toEqual({
      result: 'provider_error',
      code: 'BadRequest',
      transient: false,
    });
  });
});
