import type { SqlExecutor } from '../../database';

/**
 * The fan-out reads its audience a page at a time in user-id order among active users
 * (`recipients.ts`): `(status, id)` gives each page its rows in order from where the last one
 * ended, instead of sorting every active user again for each page (see the SQLite migration).
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute('CREATE INDEX IX_Users_status_id ON dbo.Users (status, id)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP INDEX IX_Users_status_id ON dbo.Users');
}
