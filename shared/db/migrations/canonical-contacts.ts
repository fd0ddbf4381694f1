import { canonicalEmail, canonicalPhone } from '../../users/contact-address';
import type { SqlExecutor } from '../database';

/**
 * Puts the contact data already stored into the canonical form the app now writes
 * (`shared/users/contact-address.ts`), on both engines (migration 0007): users' addresses and
 * numbers (one that is not valid is dropped, as sign-in now drops it), hard bounces and SMS
 * opt-outs (spellings of one address merge into one row, the earliest kept). Runs inside the
 * migration's transaction.
 */
export async function canonicalizeStoredContacts(tx: SqlExecutor): Promise<void> {
  const users = await tx.query<{ id: string; email: string | null; phone: string | null }>(
    'SELECT id, email, phone FROM Users WHERE email IS NOT NULL OR phone IS NOT NULL',
  );
  for (const user of users) {
    const email = user.email === null ? null : (canonicalEmail(user.email) ?? null);
    const phone = user.phone === null ? null : (canonicalPhone(user.phone) ?? null);
    if (email !== user.email || phone !== user.phone) {
      await tx.execute('UPDATE Users SET email = @email, phone = @phone WHERE id = @id', { id: user.id, email, phone });
    }
  }

  const bounces = await tx.query<{ email: string; providerCode: string; bouncedAt: string }>(
    'SELECT email, providerCode, bouncedAt FROM EmailHardBounces',
  );
  const keptBounces = earliestByKey(bounces, (row) => canonicalEmail(row.email), (row) => row.bouncedAt);
  if (changed(bounces.map((row) => row.email), keptBounces)) {
    await tx.execute('DELETE FROM EmailHardBounces');
    for (const [email, row] of keptBounces) {
      await tx.execute('INSERT INTO EmailHardBounces (email, providerCode, bouncedAt) VALUES (@email, @providerCode, @bouncedAt)', {
        email,
        providerCode: row.providerCode,
        bouncedAt: new Date(row.bouncedAt).toISOString(),
      });
    }
  }

  const optOuts = await tx.query<{ phone: string; optedOutAt: string }>('SELECT phone, optedOutAt FROM SmsOptOuts');
  const keptOptOuts = earliestByKey(optOuts, (row) => canonicalPhone(row.phone), (row) => row.optedOutAt);
  if (changed(optOuts.map((row) => row.phone), keptOptOuts)) {
    await tx.execute('DELETE FROM SmsOptOuts');
    for (const [phone, row] of keptOptOuts) {
      await tx.execute('INSERT INTO SmsOptOuts (phone, optedOutAt) VALUES (@phone, @optedOutAt)', {
        phone,
        optedOutAt: new Date(row.optedOutAt).toISOString(),
      });
    }
  }
}

/** The rows by canonical key, the earliest of each key kept; rows without a valid key dropped. */
function earliestByKey<T>(rows: readonly T[], keyOf: (row: T) => string | undefined, timeOf: (row: T) => string): Map<string, T> {
  const kept = new Map<string, T>();
  for (const row of rows) {
    const key = keyOf(row);
    if (key === undefined) continue;
    const other = kept.get(key);
    if (!other || Date.parse(timeOf(row)) < Date.parse(timeOf(other))) kept.set(key, row);
  }
  return kept;
}

/** True unless the stored keys are already exactly the canonical ones. */
function changed(stored: readonly string[], canonical: ReadonlyMap<string, unknown>): boolean {
  return stored.length !== canonical.size || stored.some((key) => !canonical.has(key));
}
