import type { SqlExecutor } from '../../database';

/**
 * The fan-out queue's messages as the database knows them (see the SQLite migration): `queued` at
 * the enqueue, `running` under a lease while a function works on one, deleted when done. The key is
 * compared exactly (ids and ranges the app made), hence the binary collation.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE dbo.FanoutMessageLeases (
      messageKey nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL CONSTRAINT PK_FanoutMessageLeases PRIMARY KEY,
      messageText nvarchar(1000) NOT NULL,
      state nvarchar(16) NOT NULL CONSTRAINT CK_FanoutMessageLeases_state CHECK (state IN (N'queued', N'running')),
      leaseUntil datetime2(3) NOT NULL,
      attempts int NOT NULL CONSTRAINT CK_FanoutMessageLeases_attempts CHECK (attempts >= 0),
      createdAt datetime2(3) NOT NULL,
      updatedAt datetime2(3) NOT NULL
    )`);
  await tx.execute('CREATE INDEX IX_FanoutMessageLeases_leaseUntil ON dbo.FanoutMessageLeases (leaseUntil) INCLUDE (state, updatedAt)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE dbo.FanoutMessageLeases');
}
