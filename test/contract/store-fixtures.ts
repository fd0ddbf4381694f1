import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Database } from '../../shared/db/database';
import { migrateDatabase } from '../../shared/db/migrate';
import type { User } from '../../shared/users/user';
import type { TestDatabase, TestDatabaseFactory } from './test-databases';

/**
 * What the store contract suites share: one migrated database per suite (a temp SQLite file, or the
 * SQL Server test database reset once), emptied before each test, and rows to seed it with.
 * Every store statement under test is the store's own; only the emptying is written here.
 */

/**
 * The tables the domain stores write, children before parents, so plain DELETEs satisfy the
 * foreign keys on both engines. AuditLog is left out: it is append-only, and no store here writes it.
 */
const STORE_TABLES = [
  'ProviderEvents',
  'PushTickets',
  'NotificationDeliveries',
  'SmsMonthlySpend',
  'EmailHardBounces',
  'SmsOptOuts',
  'NotificationPreferences',
  'PushTokens',
  'NotificationOutbox',
  'Announcements',
  'Sessions',
  'ChildAccounts',
  'SignInAddressFailures',
  'SignInUsernameFailures',
  'AdultSignInFailures',
  'ChildConsents',
  'AccountNoticeDeliveries',
  'AccountNotices',
  'ReservedUsernames',
  'FanoutMessageLeases',
] as const;

/**
 * Registers hooks on the enclosing `describe`: the database is made and migrated once, emptied
 * before every test, and disposed of after the last.
 * @returns the suite's database, to call inside tests and hooks.
 */
export function migratedDatabasePerSuite(factory: TestDatabaseFactory): () => Database {
  let handle: TestDatabase | undefined;
  beforeAll(async () => {
    handle = await factory();
    await migrateDatabase(handle.db);
  });
  afterAll(async () => {
    await handle?.dispose();
  });
  beforeEach(async () => {
    const db = current();
    for (const table of STORE_TABLES) await db.execute(`DELETE FROM ${table}`);
    // Children point at their parent in the same table: they go first.
    await db.execute('DELETE FROM Users WHERE parentId IS NOT NULL');
    await db.execute('DELETE FROM Users');
  });
  const current = (): Database => {
    if (!handle) throw new Error('The suite database is made in beforeAll');
    return handle.db;
  };
  return current;
}

/** The instant `ms` milliseconds after `base`, as the ISO 8601 UTC string the app writes. */
export function isoAfter(base: string, ms: number): string {
  return new Date(Date.parse(base) + ms).toISOString();
}

/**
 * A lowercase UUID-shaped id numbered `n`: ids made this way sort by `n` on both engines.
 * @param prefix one hex digit that keeps kinds of ids apart (users, announcements, …).
 */
export function numberedId(n: number, prefix = '0'): string {
  return `${prefix.repeat(8)}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export const ISSUER = 'https://login.contract.test/tenant/v2.0';
export const CREATED = '2025-04-01T09:30:15.250Z';

/** An active adult member numbered `n`, changed by `overrides`. */
export function adultUser(n: number, overrides: Partial<User> = {}): User {
  return {
    id: numberedId(n),
    accountType: 'adult',
    issuer: ISSUER,
    subject: `subject-${n}`,
    parentId: null,
    role: 'member',
    status: 'active',
    email: null,
    phone: null,
    createdAt: CREATED,
    updatedAt: CREATED,
    ...overrides,
  };
}

/** The Users row of an active child numbered `n` of `parentId`, changed by `overrides`. */
export function childUser(n: number, parentId: string, overrides: Partial<User> = {}): User {
  return {
    id: numberedId(n),
    accountType: 'child',
    issuer: null,
    subject: null,
    parentId,
    role: 'child',
    status: 'active',
    email: null,
    phone: null,
    createdAt: CREATED,
    updatedAt: CREATED,
    ...overrides,
  };
}
