import type { SqlExecutor } from '../../db/database';
import { UniqueViolationError } from '../../db/database-errors';
import { canonicalEmail } from '../../validation/contact-address';

/**
 * E-mail addresses that hard-bounced (contract section 10): marked once, never sent to
 * again. Keyed by the address in canonical form (`canonicalEmail`), as Users holds it, so matching
 * is exact on every engine; a user whose verified address changes gets e-mail again.
 */

/** Marks `email` as hard-bounced with the provider's code (a short label). Idempotent; not an address: nothing to mark. */
export async function markEmailHardBounce(db: SqlExecutor, email: string, providerCode: string, now: string): Promise<void> {
  const canonical = canonicalEmail(email);
  if (canonical === undefined) return;
  try {
    await db.execute('INSERT INTO EmailHardBounces (email, providerCode, bouncedAt) VALUES (@email, @providerCode, @now)', {
      email: canonical,
      providerCode: providerCode.slice(0, 64),
      now,
    });
  } catch (error) {
    if (!(error instanceof UniqueViolationError)) throw error;
  }
}

/** True when `email` (in any spelling of its canonical form) hard-bounced before. */
export async function isEmailHardBounced(db: SqlExecutor, email: string): Promise<boolean> {
  const canonical = canonicalEmail(email);
  if (canonical === undefined) return false;
  const rows = await db.query<{ email: string }>('SELECT email FROM EmailHardBounces WHERE email = @email', { email: canonical });
  return rows.length > 0;
}
