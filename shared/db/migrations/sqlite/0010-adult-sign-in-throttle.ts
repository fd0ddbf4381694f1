import type { SqlExecutor } from '../../database';

/**
 * Adult sign-in limits (`shared/throttles/adult-sign-in-throttle.ts`), shared by every instance through
 * the database: one row per failed adult sign-in, keyed by the HMAC-SHA256 (hex) of its client
 * address bucket, never the address. A table of its own rather than the child's
 * `SignInAddressFailures`: every child sign-in prunes that one to the child's 10-minute window,
 * which would cut a longer adult window short, and the global ceiling counts adult rows only.
 * Rows older than both windows are pruned as failures are recorded.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE AdultSignInFailures (
      id TEXT NOT NULL PRIMARY KEY,
      addressKey TEXT NOT NULL,
      failedAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute('CREATE INDEX IX_AdultSignInFailures_addressKey_failedAt ON AdultSignInFailures (addressKey, failedAt)');
  await tx.execute('CREATE INDEX IX_AdultSignInFailures_failedAt ON AdultSignInFailures (failedAt)');
}

/** Throttle state is disposable: dropping it only forgets recent failures. */
export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE AdultSignInFailures');
}
