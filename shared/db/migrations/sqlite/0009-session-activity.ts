import type { SqlExecutor } from '../../database';

/**
 * Sessions a person can see and end (`GET /api/v1/me/sessions`): each session keeps the coarse
 * client label of the sign-in that made it ("iOS app", "Windows browser": `shared/sessions/client-label.ts`),
 * never the `User-Agent` header. Sessions from before this migration read `unknown`.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(
    "ALTER TABLE Sessions ADD COLUMN clientLabel TEXT NOT NULL DEFAULT 'unknown' CHECK (length(clientLabel) BETWEEN 1 AND 32)",
  );
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('ALTER TABLE Sessions DROP COLUMN clientLabel');
}
