import type { SqlExecutor } from '../../database';
import { canonicalizeStoredContacts } from '../canonical-contacts';

/**
 * Identifiers compare exactly: the columns that hold what a client or provider submits
 * (child usernames, e-mail addresses, phone numbers, push ticket ids) get a binary collation, so
 * `A` is not `a` and `ｋ` is not `k` as Azure SQL's default collation would have it. Trailing
 * spaces still never count in SQL Server's comparisons, under any collation: that is why the app
 * never sends a value that is not in canonical form (`child-username.ts`, `contact-address.ts`).
 * Keys and indexes on a column are dropped and made again around the change. Then the stored
 * addresses and numbers take the canonical form.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP INDEX UX_ChildAccounts_username ON dbo.ChildAccounts');
  await tx.execute('ALTER TABLE dbo.ChildAccounts ALTER COLUMN username nvarchar(32) COLLATE Latin1_General_100_BIN2 NOT NULL');
  await tx.execute('CREATE UNIQUE INDEX UX_ChildAccounts_username ON dbo.ChildAccounts (username)');
  await tx.execute('ALTER TABLE dbo.Users ALTER COLUMN email nvarchar(320) COLLATE Latin1_General_100_BIN2 NULL');
  await tx.execute('ALTER TABLE dbo.Users ALTER COLUMN phone nvarchar(32) COLLATE Latin1_General_100_BIN2 NULL');
  await rekey(tx, 'EmailHardBounces', 'email', 'nvarchar(320)', 'Latin1_General_100_BIN2');
  await rekey(tx, 'SmsOptOuts', 'phone', 'nvarchar(32)', 'Latin1_General_100_BIN2');
  await rekey(tx, 'PushTickets', 'ticketId', 'nvarchar(128)', 'Latin1_General_100_BIN2');
  await canonicalizeStoredContacts(tx);
}

/** Back to the database's default collation (the data stays canonical, which is valid either way). */
export async function down(tx: SqlExecutor): Promise<void> {
  await rekey(tx, 'PushTickets', 'ticketId', 'nvarchar(128)', 'DATABASE_DEFAULT');
  await rekey(tx, 'SmsOptOuts', 'phone', 'nvarchar(32)', 'DATABASE_DEFAULT');
  await rekey(tx, 'EmailHardBounces', 'email', 'nvarchar(320)', 'DATABASE_DEFAULT');
  await tx.execute('ALTER TABLE dbo.Users ALTER COLUMN phone nvarchar(32) COLLATE DATABASE_DEFAULT NULL');
  await tx.execute('ALTER TABLE dbo.Users ALTER COLUMN email nvarchar(320) COLLATE DATABASE_DEFAULT NULL');
  await tx.execute('DROP INDEX UX_ChildAccounts_username ON dbo.ChildAccounts');
  await tx.execute('ALTER TABLE dbo.ChildAccounts ALTER COLUMN username nvarchar(32) COLLATE DATABASE_DEFAULT NOT NULL');
  await tx.execute('CREATE UNIQUE INDEX UX_ChildAccounts_username ON dbo.ChildAccounts (username)');
}

/** Changes the collation of a table's primary-key column: the key is dropped and made again around it. */
async function rekey(tx: SqlExecutor, table: string, column: string, type: string, collation: string): Promise<void> {
  await tx.execute(`ALTER TABLE dbo.${table} DROP CONSTRAINT PK_${table}`);
  await tx.execute(`ALTER TABLE dbo.${table} ALTER COLUMN ${column} ${type} COLLATE ${collation} NOT NULL`);
  await tx.execute(`ALTER TABLE dbo.${table} ADD CONSTRAINT PK_${table} PRIMARY KEY (${column})`);
}
