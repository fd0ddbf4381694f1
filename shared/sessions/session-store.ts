import type { Database, SqlExecutor } from '../db/database';
import { limitClause } from '../db/dialect';
import type { LiveSession, Session, SessionEndReason } from './session';

/** The `Sessions` table. Writes take an executor so they join the caller's transaction. */

const SESSION_COLUMNS =
  'id, userId, secretHash, accountType, createdAt, lastUsedAt, idleExpiresAt, absoluteExpiresAt, endedAt, endReason, clientLabel';

export async function insertSession(tx: SqlExecutor, session: Session): Promise<void> {
  await tx.execute(
    `INSERT INTO Sessions (${SESSION_COLUMNS})
     VALUES (@id, @userId, @secretHash, @accountType, @createdAt, @lastUsedAt, @idleExpiresAt, @absoluteExpiresAt, @endedAt, @endReason, @clientLabel)`,
    { ...session },
  );
}

export async function findSessionById(db: SqlExecutor, id: string): Promise<Session | undefined> {
  const rows = await db.query<Session>(`SELECT ${SESSION_COLUMNS} FROM Sessions WHERE id = @id`, { id });
  return rows[0];
}

/** Records use of a session and pushes its idle expiry out. */
export async function touchSession(db: SqlExecutor, id: string, lastUsedAt: string, idleExpiresAt: string): Promise<void> {
  await db.execute(
    'UPDATE Sessions SET lastUsedAt = @lastUsedAt, idleExpiresAt = @idleExpiresAt WHERE id = @id AND endedAt IS NULL',
    { id, lastUsedAt, idleExpiresAt },
  );
}

/**
 * Ends one open session; resolves false when it had already ended (a concurrent sign-out or
 * sweep), so exactly one caller writes the audit row.
 */
export async function endSession(tx: SqlExecutor, id: string, reason: SessionEndReason, now: string): Promise<boolean> {
  const changed = await tx.execute(
    'UPDATE Sessions SET endedAt = @now, endReason = @reason WHERE id = @id AND endedAt IS NULL',
    { id, reason, now },
  );
  return changed === 1;
}

/** Ends every open session of a user; resolves with how many there were. */
export async function endUserSessions(tx: SqlExecutor, userId: string, reason: SessionEndReason, now: string): Promise<number> {
  return tx.execute('UPDATE Sessions SET endedAt = @now, endReason = @reason WHERE userId = @userId AND endedAt IS NULL', {
    userId,
    reason,
    now,
  });
}

/**
 * A user's live sessions (open, and within both lifetimes at `now`), newest first, at most `limit`.
 * Never the secret hash: what lists sessions cannot show what it did not read.
 */
export async function findLiveUserSessions(db: Database, userId: string, now: string, limit: number): Promise<LiveSession[]> {
  return db.query<LiveSession>(
    `SELECT id, userId, accountType, createdAt, lastUsedAt, idleExpiresAt, absoluteExpiresAt, clientLabel FROM Sessions
     WHERE userId = @userId AND endedAt IS NULL AND idleExpiresAt > @now AND absoluteExpiresAt > @now
     ORDER BY createdAt DESC, id ${limitClause(db.dialect, '@limit')}`,
    { userId, now, limit },
  );
}

/**
 * Ends a user's live sessions but `keepId` (null: all of them); resolves with how many. Sessions
 * already past a lifetime are left to the sweep, which records them as expired.
 */
export async function endLiveUserSessions(
  tx: SqlExecutor,
  userId: string,
  reason: SessionEndReason,
  now: string,
  keepId: string | null,
): Promise<number> {
  return tx.execute(
    `UPDATE Sessions SET endedAt = @now, endReason = @reason
     WHERE userId = @userId AND endedAt IS NULL AND idleExpiresAt > @now AND absoluteExpiresAt > @now
       AND (@keepId IS NULL OR id <> @keepId)`,
    { userId, reason, now, keepId },
  );
}

/** Open sessions whose idle or absolute lifetime has run out, for the background sweep. */
export async function findExpiredOpenSessions(db: Database, now: string, limit: number): Promise<Session[]> {
  return db.query<Session>(
    `SELECT ${SESSION_COLUMNS} FROM Sessions
     WHERE endedAt IS NULL AND (idleExpiresAt <= @now OR absoluteExpiresAt <= @now)
     ORDER BY id ${limitClause(db.dialect, '@limit')}`,
    { now, limit },
  );
}
