import type { SqlExecutor } from '../../database';

/**
 * Sessions a person can see and end, as in `../sqlite/0009-session-activity.ts`: each session keeps
 * the coarse client label of its sign-in, never the `User-Agent` header; existing sessions get
 * `unknown` from the default.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(
    "ALTER TABLE dbo.Sessions ADD clientLabel nvarchar(32) NOT NULL CONSTRAINT DF_Sessions_clientLabel DEFAULT N'unknown'",
  );
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE dbo.Sessions DROP CONSTRAINT DF_Sessions_clientLabel');
  await tx.execute('ALTER TABLE dbo.Sessions DROP COLUMN clientLabel');
}
