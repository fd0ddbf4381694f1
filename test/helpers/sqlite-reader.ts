import { DatabaseSync } from 'node:sqlite';

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
