import type { SessionExpiryReason } from '../audit/audit-event';
import type { DatabaseProvider } from '../db/lazy-database';
import type { Logger } from '../logging/logger';
import type { Clock } from '../ports/clock';
import type { Random } from '../ports/random';
import type { Session } from './session';
import { expireSession } from './expire-session';
import { findExpiredOpenSessions } from './session-store';

/**
 * The hourly session sweep (contract sections 5 and 11): sessions whose idle or absolute lifetime
 * ran out while nobody presented them are ended and get their `session_expired` audit row, each in
 * its own transaction. `endSession` only ends an open session, so a sign-in check or another
 * instance sweeping at the same time never makes a second row.
 */

export interface SessionSweepDeps {
  database: DatabaseProvider;
  clock: Clock;
  random: Random;
  logger: Logger;
}

export interface SessionSweepOptions {
  /** Sessions read per query. */
  batchSize?: number;
  /** Queries per run; what is left waits for the next run, so one run stays short. */
  maxBatches?: number;
}

export interface SessionSweepResult {
  idle: number;
  absolute: number;
  /** True when the run stopped at `maxBatches` with expired sessions possibly left. */
  more: boolean;
}

const DEFAULT_BATCH_SIZE = 200;
const DEFAULT_MAX_BATCHES = 25;

/**
 * Why and when an unseen session expired: at the earlier of its two deadlines. The idle deadline
 * never lies past the absolute one, so when they coincide the absolute lifetime is the cause.
 */
export function expiryOf(session: Pick<Session, 'idleExpiresAt' | 'absoluteExpiresAt'>): { reason: SessionExpiryReason; at: Date } {
  const idle = Date.parse(session.idleExpiresAt);
  const absolute = Date.parse(session.absoluteExpiresAt);
  return absolute <= idle ? { reason: 'absolute', at: new Date(absolute) } : { reason: 'idle', at: new Date(idle) };
}

/**
 * Ends the sessions that expired unseen, up to `batchSize × maxBatches` of them per run.
 * `endedAt` and `durationSeconds` are those of the moment the session expired, not of the sweep.
 */
export async function sweepExpiredSessions(deps: SessionSweepDeps, options: SessionSweepOptions = {}): Promise<SessionSweepResult> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const maxBatches = options.maxBatches ?? DEFAULT_MAX_BATCHES;
  const db = await deps.database.get();
  const now = deps.clock.now();
  const result: SessionSweepResult = { idle: 0, absolute: 0, more: false };
  for (let batch = 0; batch < maxBatches; batch += 1) {
    const expired = await findExpiredOpenSessions(db, now.toISOString(), batchSize);
    for (const session of expired) {
      const expiry = expiryOf(session);
      const ended = await db.transaction((tx) => expireSession(tx, session, expiry.reason, expiry.at, deps, { sweep: true }));
      if (ended) result[expiry.reason] += 1;
    }
    if (expired.length < batchSize) break;
    if (batch === maxBatches - 1) result.more = true;
  }
  const fields = { idle: result.idle, absolute: result.absolute, more: result.more };
  if (result.idle + result.absolute > 0 || result.more) deps.logger.info(fields, 'expired sessions swept');
  else deps.logger.debug(fields, 'expired sessions swept');
  return result;
}
