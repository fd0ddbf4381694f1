import { describe, expect, it } from 'vitest';
import { smsKeywordOf } from './sms-keywords';

describe('smsKeywordOf', () => {
  it.each([
    ['STOP', 'stop'],
    [' stop ', 'stop'],
    ['StopAll', 'stop'],
    ['UNSUBSCRIBE', 'stop'],
    ['end', 'stop'],
    ['Quit!', 'stop'],
    ['cancel.', 'stop'],
    ['OPTOUT', 'stop'],
    ['START', 'start'],
    ['unstop', 'start'],
    ['OptIn', 'start'],
  ])('%j is %s', (message, keyword) => {
    expect(smsKeywordOf(message)).toBe(keyword);
  });

  it.each(['Stop sending me bake sale news', 'STOP IT', 'HELP', 'STARTED', 'opt out', '', '🛑'])('%j is no keyword', (message) => {
    expect(smsKeywordOf(message)).toBeUndefined();
  });
});
