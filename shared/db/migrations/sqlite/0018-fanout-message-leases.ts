import type { SqlExecutor } from '../../database';

/**
 * The fan-out queue's messages as the database knows them (`FanoutMessageLeases`), so the work a
 * dead host held is found without waiting for the Functions host's 10-minute queue lease: a row is
 * written `queued` when its message is enqueued (split, batch or account notice, keyed by what the
 * message is about), `running` under a lease while a function works on it, and deleted when that
 * work is done. Ids and ranges only, never a name or an address. The recovery timer's look-up of
 * expired leases is a seek on the filtered (state, leaseUntil) index.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE FanoutMessageLeases (
      messageKey TEXT NOT NULL PRIMARY KEY,
      messageText TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('queued', 'running')),
      leaseUntil TEXT NOT NULL,
      attempts INTEGER NOT NULL CHECK (attempts >= 0),
      createdAt TEXT NOT NULL,
      updatedAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute('CREATE INDEX IX_FanoutMessageLeases_leaseUntil ON FanoutMessageLeases (leaseUntil)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE FanoutMessageLeases');
}
