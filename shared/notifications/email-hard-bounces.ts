import type { SqlExecutor } from '../db/database';
import { UniqueViolationError } from '../db/database-errors';

/**
 * E-mail addresses that hard-bounced (contract section 10; issue 4): marked once, never sent to
 * again. Keyed by the address, so a user whose verified address changes gets e-mail again.
 */

/** Marks `email` as hard-bounced with the provider's code (a short label). Idempotent. */
export async function markEmailHardBounce(db: SqlExecutor, email: string, providerCode: string, now: string): Promise<void> {
  try {
    await db.execute('INSERT INTO EmailHardBounces (email, providerCode, bouncedAt) VALUES (@email, @providerCode, @now)', {
      email,
      providerCode: providerCode.slice(0, 64),
      now,
    });
  } catch (error) {
    if (!(error instanceof UniqueViolationError)) throw error;
  }
}

/** True when `email` hard-bounced before. */
export async function isEmailHardBounced(db: SqlExecutor, email: string): Promise<boolean> {
  const rows = await db.query<{ email: string }>('SELECT email FROM EmailHardBounces WHERE email = @email', { email });
  return rows.length > 0;
}
