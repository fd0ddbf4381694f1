import type { SqlExecutor } from '../../database';

/**
 * Erasure (`shared/users/account-erasure.ts`):
 * - Users gains the status `erased`: the row stays as a tombstone so that audit rows, consents and
 *   announcements that name its id stay meaningful, but holds nothing personal. An erased adult
 *   keeps no issuer or subject (the same person signing in again starts a new account), so the
 *   kind check lets an erased adult's be NULL. SQLite cannot change a CHECK constraint in place:
 *   the table is rebuilt (below).
 * - ReservedUsernames: the username of an erased child stays taken until `releasedAt`, so a new
 *   child cannot inherit an old one's identity at once. Keyed by the username's HMAC under the
 *   pepper (as the sign-in throttle is), so the erased username itself is not kept.
 * - An index of the audit rows by actor, for the export (`GET /me/export`) of the rows that name
 *   a person as the one who acted (the subject's index exists since 0013).
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await rebuildUsers(tx, STATUSES_WITH_ERASED, KIND_WITH_ERASED);
  await tx.execute(`
    CREATE TABLE ReservedUsernames (
      usernameKey TEXT NOT NULL PRIMARY KEY,
      reservedAt TEXT NOT NULL,
      releasedAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute('CREATE INDEX IX_AuditLog_actorUserId_occurredAt_id ON AuditLog (actorUserId, occurredAt, id)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP INDEX IX_AuditLog_actorUserId_occurredAt_id');
  await tx.execute('DROP TABLE ReservedUsernames');
  // The previous schema has no tombstones: an erased account becomes a disabled one with an
  // identity that matches no provider's subject.
  await tx.execute(
    "UPDATE Users SET status = 'disabled', issuer = CASE WHEN accountType = 'adult' THEN 'erased' END, subject = CASE WHEN accountType = 'adult' THEN id END WHERE status = 'erased'",
  );
  await rebuildUsers(tx, STATUSES_BEFORE, KIND_BEFORE);
}

const STATUSES_BEFORE = "'active', 'pending_approval', 'disabled'";
const STATUSES_WITH_ERASED = `${STATUSES_BEFORE}, 'erased'`;
const KIND_BEFORE = `(accountType = 'adult' AND issuer IS NOT NULL AND subject IS NOT NULL AND parentId IS NULL AND role <> 'child')
          OR (accountType = 'child' AND issuer IS NULL AND subject IS NULL AND parentId IS NOT NULL AND role = 'child')`;
const KIND_WITH_ERASED = `(accountType = 'adult' AND ((issuer IS NOT NULL AND subject IS NOT NULL) OR (status = 'erased' AND issuer IS NULL AND subject IS NULL))
            AND parentId IS NULL AND role <> 'child')
          OR (accountType = 'child' AND issuer IS NULL AND subject IS NULL AND parentId IS NOT NULL AND role = 'child')`;
const COLUMNS = 'id, accountType, issuer, subject, parentId, role, status, email, phone, createdAt, updatedAt';

/**
 * Recreates Users with `statuses` and `kind` as its checks, keeping its rows and indexes, inside
 * the migration's transaction. Many tables reference Users with foreign keys switched on, and
 * `PRAGMA foreign_keys` cannot change inside a transaction; `defer_foreign_keys` can (it resets at
 * COMMIT). Deferred, dropping Users counts every row that references it as a violation, and
 * inserting the same ids into the new Users takes each count back, so the COMMIT checks that every
 * reference found its row again (a lost row fails the migration). Nothing references the copy, and
 * no other table's definition names it, so no RENAME has to rewrite other tables' references.
 */
async function rebuildUsers(tx: SqlExecutor, statuses: string, kind: string): Promise<void> {
  await tx.execute('PRAGMA defer_foreign_keys = ON');
  await tx.execute(`CREATE TABLE Users_rebuilt AS SELECT ${COLUMNS} FROM Users`);
  await tx.execute('DROP TABLE Users');
  await tx.execute(`
    CREATE TABLE Users (
      id TEXT NOT NULL PRIMARY KEY,
      accountType TEXT NOT NULL CHECK (accountType IN ('adult', 'child')),
      issuer TEXT NULL,
      subject TEXT NULL,
      parentId TEXT NULL REFERENCES Users (id),
      role TEXT NOT NULL CHECK (role IN ('member', 'author', 'admin', 'child')),
      status TEXT NOT NULL CHECK (status IN (${statuses})),
      email TEXT NULL,
      phone TEXT NULL,
      createdAt TEXT NOT NULL,
      updatedAt TEXT NOT NULL,
      CHECK (${kind})
    ) STRICT`);
  await tx.execute(`INSERT INTO Users (${COLUMNS}) SELECT ${COLUMNS} FROM Users_rebuilt`);
  await tx.execute('DROP TABLE Users_rebuilt');
  await tx.execute('CREATE UNIQUE INDEX UX_Users_issuer_subject ON Users (issuer, subject) WHERE issuer IS NOT NULL');
  await tx.execute('CREATE INDEX IX_Users_status_createdAt ON Users (status, createdAt)');
  await tx.execute('CREATE INDEX IX_Users_parentId ON Users (parentId)');
  await tx.execute('CREATE INDEX IX_Users_status_id ON Users (status, id)');
}
