import type { Database, SqlExecutor } from '../db/database';
import { limitClause } from '../db/dialect';

/**
 * The SQL of adult sign-in throttling (table from migration `0010-adult-sign-in-throttle`): one row
 * per failed adult sign-in, keyed by the HMAC of its client address bucket. Text both engines
 * accept, as the child throttle's store: named parameters, ISO 8601 UTC timestamps from the app
 * (compared as text on SQLite, converted to datetime2 on SQL Server), no engine functions.
 */

/** Failures in one window, and the oldest of them. */
export interface FailureWindow {
  failures: number;
  /** ISO 8601 UTC of the oldest failure still in the window; null when there is none. */
  oldestFailedAt: string | null;
}

/** Both windows an attempt is judged by: its address's and everyone's. */
export interface AdultFailureWindows {
  address: FailureWindow;
  global: FailureWindow;
}

/**
 * The address's failures after `addressWindowStart` and all failures after `globalWindowStart`,
 * in one round trip (a flood of refused attempts costs one read each).
 */
export async function readAdultFailureWindows(
  executor: SqlExecutor,
  addressKey: string,
  starts: { addressWindowStart: string; globalWindowStart: string },
): Promise<AdultFailureWindows> {
  const [row] = await executor.query<{
    addressFailures: number;
    addressOldest: string | null;
    globalFailures: number;
    globalOldest: string | null;
  }>(
    `SELECT
       (SELECT COUNT(*) FROM AdultSignInFailures WHERE addressKey = @addressKey AND failedAt > @addressWindowStart) AS addressFailures,
       (SELECT MIN(failedAt) FROM AdultSignInFailures WHERE addressKey = @addressKey AND failedAt > @addressWindowStart) AS addressOldest,
       (SELECT COUNT(*) FROM AdultSignInFailures WHERE failedAt > @globalWindowStart) AS globalFailures,
       (SELECT MIN(failedAt) FROM AdultSignInFailures WHERE failedAt > @globalWindowStart) AS globalOldest`,
    { addressKey, ...starts },
  );
  return {
    address: { failures: Number(row?.addressFailures ?? 0), oldestFailedAt: toIsoOrNull(row?.addressOldest) },
    global: { failures: Number(row?.globalFailures ?? 0), oldestFailedAt: toIsoOrNull(row?.globalOldest) },
  };
}

/** Logs one failed adult sign-in against its address. */
export async function insertAdultFailure(
  executor: SqlExecutor,
  failure: { id: string; addressKey: string; failedAt: string },
): Promise<void> {
  await executor.execute(
    'INSERT INTO AdultSignInFailures (id, addressKey, failedAt) VALUES (@id, @addressKey, @failedAt)',
    failure,
  );
}

/** Deletes every failure at or before `before`; returns how many. */
export async function pruneAdultFailures(executor: SqlExecutor, before: string): Promise<number> {
  return executor.execute('DELETE FROM AdultSignInFailures WHERE failedAt <= @before', { before });
}

/**
 * Deletes at most `limit` failures at or before `before`, oldest first; returns how many. One
 * short statement per batch (a range of the time index), for the background sweep.
 */
export async function pruneAdultFailuresBatch(db: Database, before: string, limit: number): Promise<number> {
  return db.execute(
    `DELETE FROM AdultSignInFailures WHERE id IN (
       SELECT id FROM AdultSignInFailures WHERE failedAt <= @before
       ORDER BY failedAt ${limitClause(db.dialect, '@limit')})`,
    { before, limit },
  );
}

/** Both adapters return ISO strings; re-serialised into `toISOString`'s exact form for arithmetic and tests. */
function toIsoOrNull(value: string | null | undefined): string | null {
  return value == null ? null : new Date(value).toISOString();
}
