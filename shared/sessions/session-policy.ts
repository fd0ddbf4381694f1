import type { AccountType } from '../users/user';

/** How long sessions live (contract section 5); configurable per deployment through the composition root. */
export interface SessionLifetimes {
  absoluteMs: number;
  idleMs: number;
}

export type SessionPolicy = Readonly<Record<AccountType, SessionLifetimes>> & {
  /** `lastUsedAt` is written at most this often, so reads do not turn into writes. */
  readonly touchIntervalMs: number;
};

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

export const DEFAULT_SESSION_POLICY: SessionPolicy = {
  adult: { absoluteMs: 30 * DAY, idleMs: 14 * DAY },
  child: { absoluteMs: 7 * DAY, idleMs: 2 * DAY },
  touchIntervalMs: HOUR,
};
