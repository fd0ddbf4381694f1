import type { SqlExecutor } from '../../database';

/**
 * The parent's consent records for a child account (`shared/children/child-consent-store.ts`): one
 * row per consent given, with the terms version, the sections it covers (a JSON array), how it was
 * given and when. A later consent replaces the one in force (`replacedAt`); withdrawing all consent
 * ends it (`withdrawnAt`); at most one per child is in force (neither set). `revision` counts a
 * child's consents from 1, so the list has one order even when two share a millisecond. Ids and
 * facts only: nothing personal. Children created before this migration have no row until their
 * parent next changes their sections (no consent is invented for them).
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE ChildConsents (
      id TEXT NOT NULL PRIMARY KEY,
      childUserId TEXT NOT NULL REFERENCES Users (id),
      parentUserId TEXT NOT NULL REFERENCES Users (id),
      revision INTEGER NOT NULL CHECK (revision >= 1),
      termsVersion TEXT NOT NULL CHECK (length(termsVersion) BETWEEN 1 AND 32),
      sections TEXT NOT NULL CHECK (json_valid(sections)),
      method TEXT NOT NULL CHECK (length(method) BETWEEN 1 AND 64),
      givenAt TEXT NOT NULL,
      replacedAt TEXT NULL,
      withdrawnAt TEXT NULL,
      CHECK (replacedAt IS NULL OR withdrawnAt IS NULL)
    ) STRICT`);
  await tx.execute('CREATE UNIQUE INDEX UX_ChildConsents_childUserId_revision ON ChildConsents (childUserId, revision)');
  await tx.execute(
    'CREATE UNIQUE INDEX UX_ChildConsents_inForce ON ChildConsents (childUserId) WHERE replacedAt IS NULL AND withdrawnAt IS NULL',
  );
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE ChildConsents');
}
