import type { SqlExecutor } from '../../database';

/**
 * Child sign-in throttling (contract section 6), shared by every instance through the database.
 * No plaintext: both keys are HMAC-SHA256 (hex) of the username or of the client's address bucket.
 * - SignInUsernameFailures: one row per submitted username (existing or not) with failures since
 *   its last success; a success deletes the row.
 * - SignInAddressFailures: one row per failed sign-in, a sliding 10-minute log per address; rows
 *   older than the window are pruned as sign-ins come in.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE SignInUsernameFailures (
      usernameKey TEXT NOT NULL PRIMARY KEY,
      consecutiveFailures INTEGER NOT NULL CHECK (consecutiveFailures >= 1),
      lastFailureAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute('CREATE INDEX IX_SignInUsernameFailures_lastFailureAt ON SignInUsernameFailures (lastFailureAt)');
  await tx.execute(`
    CREATE TABLE SignInAddressFailures (
      id TEXT NOT NULL PRIMARY KEY,
      addressKey TEXT NOT NULL,
      failedAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute(
    'CREATE INDEX IX_SignInAddressFailures_addressKey_failedAt ON SignInAddressFailures (addressKey, failedAt)',
  );
  await tx.execute('CREATE INDEX IX_SignInAddressFailures_failedAt ON SignInAddressFailures (failedAt)');
}

/** Throttle state is disposable: dropping it only forgets recent failures. */
export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE SignInAddressFailures');
  await tx.execute('DROP TABLE SignInUsernameFailures');
}
