import { describe, expect, it } from 'vitest';
import { fixedClock, manualClock, systemClock } from './clock';

describe('clocks', () => {
  it('systemClock tells the real time', () => {
    const before = Date.now();
    const now = systemClock.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('fixedClock always answers the same instant, as a fresh Date each time', () => {
    const clock = fixedClock('2025-01-01T00:00:00.000Z');
    const first = clock.now();
    first.setUTCFullYear(1999);
    expect(clock.now().toISOString()).toBe('2025-01-01T00:00:00.000Z');
  });

  it('manualClock moves only when told', () => {
    const clock = manualClock(new Date('2025-01-01T00:00:00.000Z'));
    clock.advance(1500);
    expect(clock.now().toISOString()).toBe('2025-01-01T00:00:01.500Z');
    clock.set('2030-06-01T12:00:00.000Z');
    expect(clock.now().toISOString()).toBe('2030-06-01T12:00:00.000Z');
  });

  it('refuses an instant that is not a date', () => {
    expect(() => fixedClock('yesterday')).toThrow(RangeError);
  });
});
