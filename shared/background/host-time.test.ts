import { describe, expect, it } from 'vitest';
import { parseHostTime } from './host-time';

describe('parseHostTime', () => {
  it('reads the Functions host\'s offset form and JavaScript\'s Z form as the same instant', () => {
    const instant = Date.UTC(2024, 4, 1, 11, 0, 0);
    expect(parseHostTime('2024-05-01T11:00:00+00:00')).toBe(instant);
    expect(parseHostTime('2024-05-01T11:00:00Z')).toBe(instant);
    expect(parseHostTime('2024-05-01T11:00:00.000Z')).toBe(instant);
    expect(parseHostTime('2024-05-01T13:00:00+02:00')).toBe(instant);
    expect(parseHostTime('2024-05-01T06:30:00-04:30')).toBe(instant);
  });

  it('takes .NET\'s seven fraction digits', () => {
    expect(parseHostTime('2024-05-01T11:00:00.1234567+00:00')).toBe(Date.UTC(2024, 4, 1, 11, 0, 0, 123));
    expect(parseHostTime('2024-05-01T11:00:00.5+00:00')).toBe(Date.UTC(2024, 4, 1, 11, 0, 0, 500));
  });

  it('refuses what is not a time with a zone', () => {
    for (const value of ['2024-05-01T11:00:00', '2024-05-01', 'yesterday', '', 42, null, undefined, '2024-13-01T11:00:00Z']) {
      expect(parseHostTime(value), String(value)).toBeUndefined();
    }
  });
});
