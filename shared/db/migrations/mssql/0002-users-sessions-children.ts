import type { SqlExecutor } from '../../database';

/**
 * Platform users (adults keyed by identity-provider issuer and subject, children by a username),
 * child credentials and scopes, and sessions. Only hashes of secrets are stored: the child's
 * Argon2id hash and SHA-256 of a session token's secret half. Identifiers that are case-sensitive
 * (the provider's issuer and subject, session ids, hashes) get a binary collation: Azure SQL's
 * default collation would match `AbC` to `abc` and confuse two identities.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE dbo.Users (
      id nvarchar(64) NOT NULL CONSTRAINT PK_Users PRIMARY KEY,
      accountType nvarchar(16) NOT NULL CONSTRAINT CK_Users_accountType CHECK (accountType IN (N'adult', N'child')),
      issuer nvarchar(400) COLLATE Latin1_General_100_BIN2 NULL,
      subject nvarchar(255) COLLATE Latin1_General_100_BIN2 NULL,
      parentId nvarchar(64) NULL CONSTRAINT FK_Users_parent REFERENCES dbo.Users (id),
      role nvarchar(16) NOT NULL CONSTRAINT CK_Users_role CHECK (role IN (N'member', N'author', N'admin', N'child')),
      status nvarchar(32) NOT NULL CONSTRAINT CK_Users_status CHECK (status IN (N'active', N'pending_approval', N'disabled')),
      email nvarchar(320) NULL,
      phone nvarchar(32) NULL,
      createdAt datetime2(3) NOT NULL,
      updatedAt datetime2(3) NOT NULL,
      CONSTRAINT CK_Users_kind CHECK (
        (accountType = N'adult' AND issuer IS NOT NULL AND subject IS NOT NULL AND parentId IS NULL AND role <> N'child')
        OR (accountType = N'child' AND issuer IS NULL AND subject IS NULL AND parentId IS NOT NULL AND role = N'child'))
    )`);
  await tx.execute('CREATE UNIQUE INDEX UX_Users_issuer_subject ON dbo.Users (issuer, subject) WHERE issuer IS NOT NULL');
  await tx.execute('CREATE INDEX IX_Users_status_createdAt ON dbo.Users (status, createdAt)');
  await tx.execute('CREATE INDEX IX_Users_parentId ON dbo.Users (parentId)');
  await tx.execute(`
    CREATE TABLE dbo.ChildAccounts (
      userId nvarchar(64) NOT NULL CONSTRAINT PK_ChildAccounts PRIMARY KEY CONSTRAINT FK_ChildAccounts_user REFERENCES dbo.Users (id),
      username nvarchar(32) NOT NULL,
      secretHash nvarchar(256) COLLATE Latin1_General_100_BIN2 NOT NULL,
      secretKind nvarchar(16) NOT NULL CONSTRAINT CK_ChildAccounts_secretKind CHECK (secretKind IN (N'pin', N'password')),
      scopes nvarchar(1000) NOT NULL CONSTRAINT CK_ChildAccounts_scopes CHECK (ISJSON(scopes) = 1),
      lockedAt datetime2(3) NULL,
      deletedAt datetime2(3) NULL,
      secretChangedAt datetime2(3) NOT NULL
    )`);
  await tx.execute('CREATE UNIQUE INDEX UX_ChildAccounts_username ON dbo.ChildAccounts (username)');
  await tx.execute(`
    CREATE TABLE dbo.Sessions (
      id nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL CONSTRAINT PK_Sessions PRIMARY KEY,
      userId nvarchar(64) NOT NULL CONSTRAINT FK_Sessions_user REFERENCES dbo.Users (id),
      secretHash nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
      accountType nvarchar(16) NOT NULL CONSTRAINT CK_Sessions_accountType CHECK (accountType IN (N'adult', N'child')),
      createdAt datetime2(3) NOT NULL,
      lastUsedAt datetime2(3) NOT NULL,
      idleExpiresAt datetime2(3) NOT NULL,
      absoluteExpiresAt datetime2(3) NOT NULL,
      endedAt datetime2(3) NULL,
      endReason nvarchar(32) NULL
    )`);
  await tx.execute('CREATE INDEX IX_Sessions_userId_endedAt ON dbo.Sessions (userId, endedAt)');
  await tx.execute('CREATE INDEX IX_Sessions_endedAt_idleExpiresAt ON dbo.Sessions (endedAt, idleExpiresAt)');
  await tx.execute('CREATE INDEX IX_Sessions_endedAt_absoluteExpiresAt ON dbo.Sessions (endedAt, absoluteExpiresAt)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE dbo.Sessions');
  await tx.execute('DROP TABLE dbo.ChildAccounts');
  await tx.execute('DROP TABLE dbo.Users');
}
