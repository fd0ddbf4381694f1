import { DatabaseSync } from 'node:sqlite';
import { usernameThrottleKey } from '../../shared/throttles/throttle-keys';

/**
 * Reads the SQLite file a running host writes to (WAL mode allows a concurrent reader), so tests
 * can check audit rows and stored values without going through the app.
 */
export function readRows<T = Record<string, unknown>>(file: string, sql: string, params: Record<string, string | number | null> = {}): T[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare(sql).all(params) as T[];
  } finally {
    db.close();
  }
}

/** Every AuditLog row, oldest first. */
export function auditRows(file: string): Record<string, unknown>[] {
  return readRows(file, 'SELECT * FROM AuditLog ORDER BY occurredAt, id');
}

/**
 * Nine failures an hour ago on a child's username, as nine patient wrong guesses leave them: the
 * next wrong PIN is the tenth, and locks the account (written beside the running host, which waits
 * for the lock as any writer does).
 */
export function seedNineFailures(file: string, pepper: string, username: string): void {
  const db = new DatabaseSync(file);
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    db.prepare('INSERT INTO SignInUsernameFailures (usernameKey, consecutiveFailures, lastFailureAt) VALUES (?, 9, ?)').run(
      usernameThrottleKey(pepper, username),
      new Date(Date.now() - 60 * 60 * 1000).toISOString(),
    );
  } finally {
    db.close();
  }
}
