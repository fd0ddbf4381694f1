import { describe, expect, it } from 'vitest';
import { PushProgress, type AnsweredDevice } from './push-progress';

const device = (userId: string, token: string) => ({ userId, token });
const answer = (d: { userId: string; token: string }, outcome: AnsweredDevice['outcome'], tries = 1): AnsweredDevice => ({ device: d, outcome, tries });

describe('PushProgress', () => {
  const a1 = device('a', 'ExponentPushToken[a1]');
  const a2 = device('a', 'ExponentPushToken[a2]');
  const b1 = device('b', 'ExponentPushToken[b1]');

  it('settles a user with the first device Expo took, once, even when their other device answers later', () => {
    const progress = new PushProgress([a1, b1, a2]);
    expect(progress.answer([answer(a1, { result: 'success', providerMessageId: 't-a1' }), answer(b1, { result: 'stale_token', code: 'DeviceNotRegistered' })])).toEqual([
      { kind: 'final', userId: 'a', result: 'success', providerMessageId: 't-a1', tries: 1 },
      { kind: 'final', userId: 'b', result: 'stale_token', providerCode: 'DeviceNotRegistered', tries: 1 },
    ]);
    expect(progress.answer([answer(a2, { result: 'provider_error', code: 'MessageTooBig', transient: false })])).toEqual([]);
  });

  it('waits for every device of a user with no success, then takes a transient failure over a permanent one', () => {
    const progress = new PushProgress([a1, a2]);
    expect(progress.answer([answer(a1, { result: 'provider_error', code: 'MessageTooBig', transient: false })])).toEqual([]);
    expect(progress.answer([answer(a2, { result: 'provider_error', code: 'http_503', transient: true }, 3)])).toEqual([
      { kind: 'postpone', userId: 'a', providerCode: 'http_503', tries: 3 },
    ]);
  });

  it('gives a permanent provider error when no device succeeded and none failed transiently', () => {
    const progress = new PushProgress([a1, a2]);
    progress.answer([answer(a1, { result: 'stale_token', code: 'DeviceNotRegistered' })]);
    expect(progress.answer([answer(a2, { result: 'provider_error', code: 'MessageRateExceeded', transient: false }, 2)])).toEqual([
      { kind: 'final', userId: 'a', result: 'provider_error', providerCode: 'MessageRateExceeded', tries: 2 },
    ]);
  });

  it('refuses an answer for a device it was not given', () => {
    expect(() => new PushProgress([a1]).answer([answer(b1, { result: 'success' })])).toThrow();
  });
});
