import type { SqlExecutor } from '../../database';

/**
 * The fan-out reads its audience a page at a time in user-id order among active users
 * (`recipients.ts`). With only `(status, createdAt)` to go by, every page sorted all active users
 * again: a 10,000-user split took 21 pages of 5.7 ms, and the work grew with the square of the
 * audience. `(status, id)` gives each page its rows in order, from where the last one ended.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute('CREATE INDEX IX_Users_status_id ON Users (status, id)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP INDEX IX_Users_status_id');
}
