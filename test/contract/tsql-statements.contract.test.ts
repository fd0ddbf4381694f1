import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateDatabase, migrationsFor } from '../../shared/db/migrate';
import { LOCK_STATEMENT } from '../../shared/db/mssql-database';
import { forgetMigration } from '../../shared/db/schema-migrations';
import { StatementLog } from '../helpers/recording-mssql-driver';
import { isRecorded, sqlLiterals } from '../helpers/sql-inventory';
import { tsqlSyntaxErrors } from '../helpers/tsql-grammar';
import { describeAccountErasureContract } from './account-erasure-contract';
import { describeAccountNoticesContract } from './account-notices-contract';
import { describeAdultSignInThrottleContract } from './adult-sign-in-throttle-contract';
import { describeAnnouncementsContract } from './announcements-contract';
import { describeAuditLogContract } from './audit-log-contract';
import { describeChildAccountsContract } from './child-accounts-contract';
import { describeChildConsentsContract } from './child-consents-contract';
import { describeChildSignInContract } from './child-sign-in-contract';
import { describeDeliveryReportsContract } from './delivery-reports-contract';
import { describeEmailContract, describePushContract, describeSmsContract } from './delivery-provider-contract';
import { outboxHarness } from './delivery-provider-harness';
import { describeMessageLeasesContract } from './message-leases-contract';
import { describeNotificationAudienceContract } from './notification-audience-contract';
import { describeNotificationDeliveryContract } from './notification-delivery-contract';
import { describeNotificationPoisonContract } from './notification-poison-contract';
import { describeSessionsContract } from './sessions-contract';
import { describeSignInThrottleContract } from './sign-in-throttle-contract';
import { CURRENT_DATABASE_SQL, DROP_ALL_TABLES_SQL, recordOnlyMssqlDatabase, recordedMssqlTestDatabase } from './test-databases';
import { describeUsersContract } from './users-contract';

/**
 * Every statement SQL Server would receive, checked offline with a real T-SQL grammar. The store
 * contract suites run once more through the SQL Server adapter over a recording driver (answered
 * by SQLite), and the SQL Server migrations run against a driver that only records; each distinct
 * text is then parsed. SQLite-isms (`LIMIT`, `INSERT OR IGNORE`, `ON CONFLICT`, `RETURNING`) fail
 * here long before a deployment would.
 */

const contractLog = new StatementLog();
const recorded = recordedMssqlTestDatabase(contractLog);
const engine = 'mssql recorded (answered by SQLite)';

describeAuditLogContract(engine, recorded);
describeUsersContract(engine, recorded);
describeChildAccountsContract(engine, recorded);
describeSessionsContract(engine, recorded);
describeSignInThrottleContract(engine, recorded);
describeAdultSignInThrottleContract(engine, recorded);
describeAnnouncementsContract(engine, recorded);
describeNotificationDeliveryContract(engine, recorded);
describeNotificationAudienceContract(engine, recorded);
describeDeliveryReportsContract(engine, recorded);
describeNotificationPoisonContract(engine, recorded);
describeMessageLeasesContract(engine, recorded);
describeChildSignInContract(engine, recorded);
describePushContract(`outbox (${engine})`, outboxHarness('push', recorded));
describeSmsContract(`outbox (${engine})`, outboxHarness('sms', recorded));
describeEmailContract(`outbox (${engine})`, outboxHarness('email', recorded));
describeChildConsentsContract(engine, recorded);
describeAccountNoticesContract(engine, recorded);
describeAccountErasureContract(engine, recorded);

const ROOT = path.resolve(__dirname, '../..');

/** Statements SQL Server refuses (checked to keep the grammar check honest: it can fail). */
const SQLITE_ONLY = [
  'SELECT id FROM Users ORDER BY id LIMIT @limit',
  'SELECT id FROM Users ORDER BY id LIMIT @limit OFFSET @offset',
  "INSERT OR IGNORE INTO EmailHardBounces (email, providerCode, bouncedAt) VALUES (@email, 'x', @now)",
  'INSERT INTO SignInUsernameFailures (usernameKey, consecutiveFailures, lastFailureAt) VALUES (@k, 1, @now) ON CONFLICT (usernameKey) DO UPDATE SET consecutiveFailures = consecutiveFailures + 1',
  'UPDATE ChildAccounts SET lockedAt = @now WHERE userId = @userId RETURNING lockedAt',
  'DELETE FROM PushTokens WHERE token = @token RETURNING userId',
  'REPLACE INTO SmsOptOuts (phone, optedOutAt) VALUES (@phone, @now)',
  'SELECT id FROM Users WHERE email GLOB @pattern',
  "SELECT strftime('%Y-%m', 'now') AS month",
  'SELECT IFNULL(email, phone) AS contact FROM Users',
  'CREATE TABLE Probe (id TEXT NOT NULL PRIMARY KEY) STRICT',
  'PRAGMA foreign_keys = ON',
  'BEGIN IMMEDIATE',
];

describe('every SQL Server statement', () => {
  const migrationLog = new StatementLog();

  it('records the SQL Server migrations as they are sent, both ways, and the probe', async () => {
    const db = recordOnlyMssqlDatabase(migrationLog);
    const result = await migrateDatabase(db);
    expect(result.applied.length).toBeGreaterThanOrEqual(6);
    // The driver answers no rows, so the downs would find nothing applied: run them directly.
    for (const migration of [...migrationsFor('mssql')].reverse()) {
      if (!migration.down) continue;
      const down = migration.down;
      await db.transaction(async (tx) => {
        await down(tx);
        await forgetMigration(tx, migration.name);
      });
    }
    await db.ping();
    await db.close();
    const texts = migrationLog.distinctTexts();
    expect(texts.some((sql) => sql.includes('CREATE TABLE dbo.AuditLog'))).toBe(true);
    expect(texts.some((sql) => sql.includes('DROP TABLE dbo.Sessions'))).toBe(true);
  });

  it('parses every recorded statement with the T-SQL grammar', () => {
    const texts = new Set([...contractLog.distinctTexts(), ...migrationLog.distinctTexts(), CURRENT_DATABASE_SQL, DROP_ALL_TABLES_SQL]);
    expect(texts.size).toBeGreaterThan(150);
    const refused = [...texts].map((sql) => ({ sql, errors: tsqlSyntaxErrors(sql) })).filter((result) => result.errors.length > 0);
    expect(refused).toEqual([]);
  });

  it('refuses every SQLite-only statement: the check can fail', () => {
    for (const sql of SQLITE_ONLY) expect(tsqlSyntaxErrors(sql), sql).not.toEqual([]);
  });

  it('has recorded every piece of SQL in the application sources', () => {
    const statements = [...contractLog.distinctTexts(), ...migrationLog.distinctTexts()];
    const literals = sqlLiterals(ROOT);
    expect(literals.length).toBeGreaterThan(100);
    expect(literals.filter((literal) => !isRecorded(literal, statements)).map((literal) => literal.where)).toEqual([]);
  });

  it('declares every parameter with a fixed type, one signature per statement (one cached plan each)', () => {
    const signatures = new Map<string, Set<string>>();
    for (const { sql, params } of [...contractLog.statements, ...migrationLog.statements]) {
      const signature = Object.entries(params)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, type]) => `${name}:${type.kind}${'length' in type ? `(${type.length})` : ''}`)
        .join(',');
      signatures.set(sql, (signatures.get(sql) ?? new Set()).add(signature));
    }
    // A number column's parameter is int or bigint by value, a long text nvarchar(max): at most two each.
    const varying = [...signatures].filter(([, seen]) => seen.size > 2).map(([sql, seen]) => ({ sql, seen: [...seen] }));
    expect(varying).toEqual([]);
  });

  it('settles child sign-ins under the username lock, failures then under the address lock, before touching a row', () => {
    const byTransaction = new Map<string, { sql: string; resource: unknown }[]>();
    for (const statement of contractLog.statements) {
      if (statement.on === 'pool') continue;
      const list = byTransaction.get(statement.on) ?? [];
      list.push({ sql: statement.sql, resource: statement.values.resource });
      byTransaction.set(statement.on, list);
    }
    const usernameLock = /^sign-in:username:[0-9a-f]{64}$/;
    const addressLock = /^sign-in:address:[0-9a-f]{64}$/;
    const transactions = [...byTransaction.values()];
    const touching = (table: string) => transactions.filter((statements) => statements.some((statement) => statement.sql.includes(table)));
    const failures = touching('INSERT INTO SignInAddressFailures');
    // A settled success claims the secret and clears the failures (store tests claim alone).
    const successes = touching('UPDATE ChildAccounts SET secretHash = @newHash').filter((statements) =>
      statements.some((statement) => statement.sql.startsWith('DELETE FROM SignInUsernameFailures WHERE usernameKey')),
    );
    expect(failures.length).toBeGreaterThan(20);
    expect(successes.length).toBeGreaterThanOrEqual(2);
    for (const statements of failures) {
      expect(statements.slice(0, 2).map((statement) => statement.sql)).toEqual([LOCK_STATEMENT, LOCK_STATEMENT]);
      expect(String(statements[0]?.resource)).toMatch(usernameLock);
      expect(String(statements[1]?.resource)).toMatch(addressLock);
    }
    for (const statements of successes) {
      expect(statements[0]?.sql).toBe(LOCK_STATEMENT);
      expect(String(statements[0]?.resource)).toMatch(usernameLock);
      expect(statements.some((statement) => addressLock.test(String(statement.resource)))).toBe(false);
    }
    // Every other transaction that counts or clears failures takes the username lock first too.
    for (const statements of touching('SignInUsernameFailures')) {
      expect(statements[0]?.sql).toBe(LOCK_STATEMENT);
      expect(String(statements[0]?.resource)).toMatch(usernameLock);
    }
  });
});
