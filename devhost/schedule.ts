import { CronExpressionParser } from 'cron-parser';
import { parseTimeSpan } from './timespan';

/**
 * Timer schedules as the Functions host reads them: an NCRONTAB expression
 * (`{second} {minute} {hour} {day} {month} {day-of-week}`, or the 5-field form without seconds),
 * evaluated in UTC, or a TimeSpan (`hh:mm:ss`) meaning "every interval".
 */
export type Schedule = { kind: 'cron'; expression: string } | { kind: 'interval'; intervalMs: number };

export class ScheduleError extends Error {
  override readonly name = 'ScheduleError';
}

/** Field tokens NCRONTAB knows: `*`, numbers and 3-letter month/day names, joined by `,` `-` `/`. */
const NCRONTAB_TOKEN = /^(?:\*|\d+|[a-z]{3})$/i;

/** Parses a schedule; throws `ScheduleError` with what is wrong. */
export function parseSchedule(text: string): Schedule {
  const trimmed = text.trim();
  if (trimmed.includes(':')) {
    const intervalMs = parseTimeSpan(trimmed);
    if (intervalMs === undefined || intervalMs <= 0) throw new ScheduleError(`"${text}" is not a positive TimeSpan.`);
    return { kind: 'interval', intervalMs };
  }
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 6 && fields.length !== 5) {
    throw new ScheduleError(`"${text}" must have 6 fields (second minute hour day month day-of-week).`);
  }
  for (const field of fields) {
    if (!field.split(/[,/-]/).every((token) => NCRONTAB_TOKEN.test(token))) {
      throw new ScheduleError(`"${text}" uses syntax NCRONTAB does not have ("${field}").`);
    }
  }
  try {
    CronExpressionParser.parse(trimmed, { tz: 'UTC' });
  } catch (error) {
    throw new ScheduleError(`"${text}" is not a valid schedule: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { kind: 'cron', expression: trimmed };
}

/**
 * The first occurrence strictly after `after`. An interval counts from `after`, which the
 * scheduler sets to the end of the previous run (or the start of the host).
 */
export function nextOccurrence(schedule: Schedule, after: Date): Date {
  if (schedule.kind === 'interval') return new Date(after.getTime() + schedule.intervalMs);
  return CronExpressionParser.parse(schedule.expression, { currentDate: after, tz: 'UTC' }).next().toDate();
}
