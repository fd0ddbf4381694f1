/**
 * The clock port: code that stamps or compares times asks a `Clock`, so tests can pin and move
 * time instead of sleeping.
 */
export interface Clock {
  /** The current instant; a fresh `Date` each call, so callers may keep or change it safely. */
  now(): Date;
}

/** The real clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that tests move by hand. */
export interface ManualClock extends Clock {
  /** Jumps to `instant`. */
  set(instant: Date | string): void;
  /** Moves forward (or back, when negative) by `ms` milliseconds. */
  advance(ms: number): void;
}

/**
 * A clock that stays at `start` until moved with `set` or `advance` (tests).
 * @param start the first instant, as a `Date` or an ISO 8601 string.
 */
export function manualClock(start: Date | string): ManualClock {
  let current = toEpochMs(start);
  return {
    now: () => new Date(current),
    set: (instant) => {
      current = toEpochMs(instant);
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

/**
 * A clock that always answers `instant` (tests).
 * @param instant a `Date` or an ISO 8601 string.
 */
export function fixedClock(instant: Date | string): Clock {
  const at = toEpochMs(instant);
  return { now: () => new Date(at) };
}

function toEpochMs(instant: Date | string): number {
  const ms = typeof instant === 'string' ? Date.parse(instant) : instant.getTime();
  if (Number.isNaN(ms)) throw new RangeError('clock instant is not a valid date');
  return ms;
}
