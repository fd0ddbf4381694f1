import type { SqlExecutor } from '../../database';

/**
 * Child sign-in throttling (contract section 6), shared by every instance through the database.
 * No plaintext: both keys are HMAC-SHA256 (hex) of the username or of the client's address bucket,
 * stored as nvarchar like the parameters the driver sends, so lookups seek without conversion.
 * - SignInUsernameFailures: one row per submitted username (existing or not) with failures since
 *   its last success; a success deletes the row.
 * - SignInAddressFailures: one row per failed sign-in, a sliding 10-minute log per address,
 *   clustered on time so inserts append and pruning deletes from the front.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE dbo.SignInUsernameFailures (
      usernameKey nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL CONSTRAINT PK_SignInUsernameFailures PRIMARY KEY,
      consecutiveFailures int NOT NULL CONSTRAINT CK_SignInUsernameFailures_count CHECK (consecutiveFailures >= 1),
      lastFailureAt datetime2(3) NOT NULL
    )`);
  await tx.execute(
    'CREATE INDEX IX_SignInUsernameFailures_lastFailureAt ON dbo.SignInUsernameFailures (lastFailureAt)',
  );
  await tx.execute(`
    CREATE TABLE dbo.SignInAddressFailures (
      id nvarchar(64) NOT NULL CONSTRAINT PK_SignInAddressFailures PRIMARY KEY NONCLUSTERED,
      addressKey nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
      failedAt datetime2(3) NOT NULL
    )`);
  await tx.execute('CREATE CLUSTERED INDEX IX_SignInAddressFailures_failedAt ON dbo.SignInAddressFailures (failedAt)');
  await tx.execute(
    'CREATE INDEX IX_SignInAddressFailures_addressKey_failedAt ON dbo.SignInAddressFailures (addressKey, failedAt)',
  );
}

/** Throttle state is disposable: dropping it only forgets recent failures. */
export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE dbo.SignInAddressFailures');
  await tx.execute('DROP TABLE dbo.SignInUsernameFailures');
}
