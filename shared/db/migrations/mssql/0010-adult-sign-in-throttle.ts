import type { SqlExecutor } from '../../database';

/**
 * Adult sign-in limits (`shared/throttles/adult-sign-in-throttle.ts`), shared by every instance through
 * the database: one row per failed adult sign-in, keyed by the HMAC-SHA256 (hex) of its client
 * address bucket, never the address, stored as nvarchar like the parameters the driver sends.
 * Clustered on time, as the child's `SignInAddressFailures`: inserts append, pruning deletes from
 * the front, and the global ceiling's count is a range at the end. A table of its own: every
 * child sign-in prunes the child's table to its 10-minute window, which would cut a longer adult
 * window short.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE dbo.AdultSignInFailures (
      id nvarchar(64) NOT NULL CONSTRAINT PK_AdultSignInFailures PRIMARY KEY NONCLUSTERED,
      addressKey nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
      failedAt datetime2(3) NOT NULL
    )`);
  await tx.execute('CREATE CLUSTERED INDEX IX_AdultSignInFailures_failedAt ON dbo.AdultSignInFailures (failedAt)');
  await tx.execute(
    'CREATE INDEX IX_AdultSignInFailures_addressKey_failedAt ON dbo.AdultSignInFailures (addressKey, failedAt)',
  );
}

/** Throttle state is disposable: dropping it only forgets recent failures. */
export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE dbo.AdultSignInFailures');
}
