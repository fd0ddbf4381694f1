import { describe, expect, it } from 'vitest';
import { nextOccurrence, parseSchedule, ScheduleError } from './schedule';
import { parseTimeSpan } from './timespan';

const at = (iso: string) => new Date(iso);
const next = (schedule: string, after: string) => nextOccurrence(parseSchedule(schedule), at(after)).toISOString();

describe('NCRONTAB schedules', () => {
  it('reads the first of six fields as seconds, in UTC', () => {
    expect(next('0 */5 * * * *', '2024-03-01T10:02:30.000Z')).toBe('2024-03-01T10:05:00.000Z');
    expect(next('30 * * * * *', '2024-03-01T10:02:30.000Z')).toBe('2024-03-01T10:03:30.000Z');
    expect(next('0 0 2 * * *', '2024-03-01T23:59:59.000Z')).toBe('2024-03-02T02:00:00.000Z');
  });

  it('is strictly after the given instant, so a run that ends on time does not repeat', () => {
    expect(next('0 */5 * * * *', '2024-03-01T10:05:00.000Z')).toBe('2024-03-01T10:10:00.000Z');
  });

  it('knows day-of-week names and ranges', () => {
    // 2024-03-02 is a Saturday: the next weekday 09:30 is Monday the 4th.
    expect(next('0 30 9 * * MON-FRI', '2024-03-02T12:00:00.000Z')).toBe('2024-03-04T09:30:00.000Z');
  });

  it('accepts the 5-field form (minute first) the host also reads', () => {
    expect(next('15 * * * *', '2024-03-01T10:20:00.000Z')).toBe('2024-03-01T11:15:00.000Z');
  });

  it('refuses expressions the host would refuse', () => {
    expect(() => parseSchedule('0 61 * * * *')).toThrow(ScheduleError);
    expect(() => parseSchedule('* * * *')).toThrow(ScheduleError);
    expect(() => parseSchedule('0 0 0 * * * 2025')).toThrow(ScheduleError);
    expect(() => parseSchedule('0 0 H * * *')).toThrow(ScheduleError);
    expect(() => parseSchedule('0 0 0 L * *')).toThrow(ScheduleError);
  });
});

describe('TimeSpan schedules', () => {
  it('run every interval, counted from the given instant', () => {
    expect(parseSchedule('00:00:30')).toEqual({ kind: 'interval', intervalMs: 30_000 });
    expect(next('01:00:00', '2024-03-01T10:02:30.000Z')).toBe('2024-03-01T11:02:30.000Z');
  });

  it('must be positive', () => {
    expect(() => parseSchedule('00:00:00')).toThrow(ScheduleError);
    expect(() => parseSchedule('-00:00:10')).toThrow(ScheduleError);
  });
});

describe('parseTimeSpan', () => {
  it('reads .NET TimeSpan text', () => {
    expect(parseTimeSpan('00:00:10')).toBe(10_000);
    expect(parseTimeSpan('1.02:03:04.5')).toBe(((26 * 60 + 3) * 60 + 4) * 1000 + 500);
    expect(parseTimeSpan('00:05')).toBe(300_000);
    expect(parseTimeSpan('00:60:00')).toBeUndefined();
    expect(parseTimeSpan('ten seconds')).toBeUndefined();
  });
});
