import type { Database, SqlExecutor } from '../db/database';
import { UniqueViolationError } from '../db/database-errors';
import { limitClause } from '../db/dialect';

/**
 * The SQL of sign-in throttling (tables from migration `0003-sign-in-throttle`). Every statement is
 * text both engines accept: named parameters, ISO 8601 UTC timestamps from the app (compared as
 * text on SQLite, converted to datetime2 on SQL Server), no engine functions. A count only changes
 * through a single `n = n + 1` statement, never read-modify-write in the app, so two instances
 * failing at once cannot lose a count.
 */

export interface UsernameFailures {
  consecutiveFailures: number;
  /** ISO 8601 UTC. */
  lastFailureAt: string;
}

export interface AddressWindow {
  failures: number;
  /** ISO 8601 UTC of the oldest failure still in the window; null when there is none. */
  oldestFailedAt: string | null;
}

/** The username's failures since its last success, if any. */
export async function readUsernameFailures(
  executor: SqlExecutor,
  usernameKey: string,
): Promise<UsernameFailures | undefined> {
  const [row] = await executor.query<UsernameFailures>(
    'SELECT consecutiveFailures, lastFailureAt FROM SignInUsernameFailures WHERE usernameKey = @usernameKey',
    { usernameKey },
  );
  return row && { consecutiveFailures: Number(row.consecutiveFailures), lastFailureAt: toIso(row.lastFailureAt) };
}

/**
 * Counts one more consecutive failure for the username, creating its row for the first one, and
 * returns the count. Two first failures racing to create the row: the loser's insert hits the
 * primary key and it increments instead. (That error ends only the statement, not the caller's
 * transaction: SQLite and SQL Server without XACT_ABORT both keep the transaction going.)
 */
export async function incrementUsernameFailures(executor: SqlExecutor, usernameKey: string, now: string): Promise<number> {
  const increment = () =>
    executor.execute(
      `UPDATE SignInUsernameFailures SET consecutiveFailures = consecutiveFailures + 1, lastFailureAt = @now
       WHERE usernameKey = @usernameKey`,
      { usernameKey, now },
    );
  if ((await increment()) === 0) {
    try {
      await executor.execute(
        'INSERT INTO SignInUsernameFailures (usernameKey, consecutiveFailures, lastFailureAt) VALUES (@usernameKey, 1, @now)',
        { usernameKey, now },
      );
      return 1;
    } catch (error) {
      if (!(error instanceof UniqueViolationError)) throw error;
      await increment();
    }
  }
  // Our increment holds the row's write lock until commit, so this reads our own count.
  const row = await readUsernameFailures(executor, usernameKey);
  if (!row) throw new Error('SignInUsernameFailures row vanished inside its own transaction');
  return row.consecutiveFailures;
}

/** Forgets the username's failures. */
export async function clearUsernameFailures(executor: SqlExecutor, usernameKey: string): Promise<void> {
  await executor.execute('DELETE FROM SignInUsernameFailures WHERE usernameKey = @usernameKey', { usernameKey });
}

/** Logs one failed sign-in against the address. */
export async function insertAddressFailure(
  executor: SqlExecutor,
  failure: { id: string; addressKey: string; failedAt: string },
): Promise<void> {
  await executor.execute(
    'INSERT INTO SignInAddressFailures (id, addressKey, failedAt) VALUES (@id, @addressKey, @failedAt)',
    failure,
  );
}

/** The address's failures after `windowStart`. */
export async function readAddressWindow(
  executor: SqlExecutor,
  addressKey: string,
  windowStart: string,
): Promise<AddressWindow> {
  const [row] = await executor.query<{ failures: number; oldestFailedAt: string | null }>(
    `SELECT COUNT(*) AS failures, MIN(failedAt) AS oldestFailedAt FROM SignInAddressFailures
     WHERE addressKey = @addressKey AND failedAt > @windowStart`,
    { addressKey, windowStart },
  );
  return {
    failures: Number(row?.failures ?? 0),
    oldestFailedAt: row?.oldestFailedAt == null ? null : toIso(row.oldestFailedAt),
  };
}

/** Deletes every address's failures at or before `windowStart`; returns how many. */
export async function pruneAddressFailures(executor: SqlExecutor, windowStart: string): Promise<number> {
  return executor.execute('DELETE FROM SignInAddressFailures WHERE failedAt <= @windowStart', { windowStart });
}

/** Deletes username rows whose last failure is before `idleSince`; returns how many. */
export async function pruneUsernameFailures(executor: SqlExecutor, idleSince: string): Promise<number> {
  return executor.execute('DELETE FROM SignInUsernameFailures WHERE lastFailureAt < @idleSince', { idleSince });
}

/**
 * Deletes at most `limit` username rows whose last failure is before `idleSince`, oldest first;
 * returns how many. One short statement per batch (an index seek on `lastFailureAt`), so the
 * background sweep never holds many row locks, or any for long, whatever the table's size.
 */
export async function pruneUsernameFailuresBatch(db: Database, idleSince: string, limit: number): Promise<number> {
  return db.execute(
    `DELETE FROM SignInUsernameFailures WHERE usernameKey IN (
       SELECT usernameKey FROM SignInUsernameFailures WHERE lastFailureAt < @idleSince
       ORDER BY lastFailureAt ${limitClause(db.dialect, '@limit')})`,
    { idleSince, limit },
  );
}

/** Deletes at most `limit` address failures at or before `windowStart`, oldest first (see `pruneUsernameFailuresBatch`). */
export async function pruneAddressFailuresBatch(db: Database, windowStart: string, limit: number): Promise<number> {
  return db.execute(
    `DELETE FROM SignInAddressFailures WHERE id IN (
       SELECT id FROM SignInAddressFailures WHERE failedAt <= @windowStart
       ORDER BY failedAt ${limitClause(db.dialect, '@limit')})`,
    { windowStart, limit },
  );
}

/** Both adapters return ISO strings; re-serialised into `toISOString`'s exact form for arithmetic and tests. */
function toIso(value: string): string {
  return new Date(value).toISOString();
}
