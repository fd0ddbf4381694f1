import type { SqlExecutor } from '../../database';

/**
 * Platform users (adults keyed by identity-provider issuer and subject, children by a username),
 * child credentials and scopes, and sessions. Only hashes of secrets are stored: the child's
 * Argon2id hash and SHA-256 of a session token's secret half.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE Users (
      id TEXT NOT NULL PRIMARY KEY,
      accountType TEXT NOT NULL CHECK (accountType IN ('adult', 'child')),
      issuer TEXT NULL,
      subject TEXT NULL,
      parentId TEXT NULL REFERENCES Users (id),
      role TEXT NOT NULL CHECK (role IN ('member', 'author', 'admin', 'child')),
      status TEXT NOT NULL CHECK (status IN ('active', 'pending_approval', 'disabled')),
      email TEXT NULL,
      phone TEXT NULL,
      createdAt TEXT NOT NULL,
      updatedAt TEXT NOT NULL,
      CHECK ((accountType = 'adult' AND issuer IS NOT NULL AND subject IS NOT NULL AND parentId IS NULL AND role <> 'child')
          OR (accountType = 'child' AND issuer IS NULL AND subject IS NULL AND parentId IS NOT NULL AND role = 'child'))
    ) STRICT`);
  await tx.execute('CREATE UNIQUE INDEX UX_Users_issuer_subject ON Users (issuer, subject) WHERE issuer IS NOT NULL');
  await tx.execute('CREATE INDEX IX_Users_status_createdAt ON Users (status, createdAt)');
  await tx.execute('CREATE INDEX IX_Users_parentId ON Users (parentId)');
  await tx.execute(`
    CREATE TABLE ChildAccounts (
      userId TEXT NOT NULL PRIMARY KEY REFERENCES Users (id),
      username TEXT NOT NULL,
      secretHash TEXT NOT NULL,
      secretKind TEXT NOT NULL CHECK (secretKind IN ('pin', 'password')),
      scopes TEXT NOT NULL CHECK (json_valid(scopes)),
      lockedAt TEXT NULL,
      deletedAt TEXT NULL,
      secretChangedAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute('CREATE UNIQUE INDEX UX_ChildAccounts_username ON ChildAccounts (username)');
  await tx.execute(`
    CREATE TABLE Sessions (
      id TEXT NOT NULL PRIMARY KEY,
      userId TEXT NOT NULL REFERENCES Users (id),
      secretHash TEXT NOT NULL,
      accountType TEXT NOT NULL CHECK (accountType IN ('adult', 'child')),
      createdAt TEXT NOT NULL,
      lastUsedAt TEXT NOT NULL,
      idleExpiresAt TEXT NOT NULL,
      absoluteExpiresAt TEXT NOT NULL,
      endedAt TEXT NULL,
      endReason TEXT NULL
    ) STRICT`);
  await tx.execute('CREATE INDEX IX_Sessions_userId_endedAt ON Sessions (userId, endedAt)');
  await tx.execute('CREATE INDEX IX_Sessions_endedAt_idleExpiresAt ON Sessions (endedAt, idleExpiresAt)');
  await tx.execute('CREATE INDEX IX_Sessions_endedAt_absoluteExpiresAt ON Sessions (endedAt, absoluteExpiresAt)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE Sessions');
  await tx.execute('DROP TABLE ChildAccounts');
  await tx.execute('DROP TABLE Users');
}
