import type { SqlExecutor } from '../../database';

/**
 * The parent's consent records for a child account, as in `../sqlite/0012-child-consents.ts`: one
 * row per consent given (terms version, sections as a JSON array, method, time); `replacedAt` when
 * a later consent took its place, `withdrawnAt` when all consent was withdrawn; at most one in
 * force per child (a filtered unique index), and `revision` orders a child's consents.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE dbo.ChildConsents (
      id nvarchar(64) NOT NULL CONSTRAINT PK_ChildConsents PRIMARY KEY,
      childUserId nvarchar(64) NOT NULL CONSTRAINT FK_ChildConsents_child REFERENCES dbo.Users (id),
      parentUserId nvarchar(64) NOT NULL CONSTRAINT FK_ChildConsents_parent REFERENCES dbo.Users (id),
      revision int NOT NULL CONSTRAINT CK_ChildConsents_revision CHECK (revision >= 1),
      termsVersion nvarchar(32) NOT NULL,
      sections nvarchar(1000) NOT NULL CONSTRAINT CK_ChildConsents_sections CHECK (ISJSON(sections) = 1),
      method nvarchar(64) NOT NULL,
      givenAt datetime2(3) NOT NULL,
      replacedAt datetime2(3) NULL,
      withdrawnAt datetime2(3) NULL,
      CONSTRAINT CK_ChildConsents_ended CHECK (replacedAt IS NULL OR withdrawnAt IS NULL)
    )`);
  await tx.execute('CREATE UNIQUE INDEX UX_ChildConsents_childUserId_revision ON dbo.ChildConsents (childUserId, revision)');
  await tx.execute(
    'CREATE UNIQUE INDEX UX_ChildConsents_inForce ON dbo.ChildConsents (childUserId) WHERE replacedAt IS NULL AND withdrawnAt IS NULL',
  );
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE dbo.ChildConsents');
}
