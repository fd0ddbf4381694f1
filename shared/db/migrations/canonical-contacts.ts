import { canonicalEmail, canonicalPhone } from '../../validation/contact-address';
import type { SqlExecutor } from '../database';

/**
 * Puts the contact data already stored into the canonical form the app now writes
 * (`shared/validation/contact-address.ts`), on both engines (migration 0007): users' addresses and
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

  await mergeSpellings(tx, {
    rows: await tx.query<KeyedRow>('SELECT email AS keyValue, providerCode AS extra, bouncedAt AS at FROM EmailHardBounces'),
    canonical: canonicalEmail,
    deleteAll: 'DELETE FROM EmailHardBounces',
    insert: (email, row) =>
      tx.execute('INSERT INTO EmailHardBounces (email, providerCode, bouncedAt) VALUES (@email, @providerCode, @bouncedAt)', {
        email,
        providerCode: row.extra,
        bouncedAt: row.at,
      }),
  });
  await mergeSpellings(tx, {
    rows: await tx.query<KeyedRow>('SELECT phone AS keyValue, NULL AS extra, optedOutAt AS at FROM SmsOptOuts'),
    canonical: canonicalPhone,
    deleteAll: 'DELETE FROM SmsOptOuts',
    insert: (phone, row) => tx.execute('INSERT INTO SmsOptOuts (phone, optedOutAt) VALUES (@phone, @optedOutAt)', { phone, optedOutAt: row.at }),
  });
}

/** A row of a table keyed by an address: the key, one more column, and when it was recorded. */
interface KeyedRow {
  keyValue: string;
  extra: string | null;
  at: string;
}

/**
 * Rewrites a table keyed by an address with canonical keys, the earliest row of each key kept and
 * rows without a valid key dropped; a table already canonical is left alone.
 */
async function mergeSpellings(
  tx: SqlExecutor,
  table: {
    rows: KeyedRow[];
    canonical: (raw: string) => string | undefined;
    deleteAll: string;
    insert: (key: string, row: KeyedRow) => Promise<unknown>;
  },
): Promise<void> {
  const kept = new Map<string, KeyedRow>();
  for (const row of table.rows) {
    const key = table.canonical(row.keyValue);
    if (key === undefined) continue;
    const other = kept.get(key);
    if (!other || Date.parse(row.at) < Date.parse(other.at)) kept.set(key, { ...row, at: new Date(row.at).toISOString() });
  }
  if (table.rows.length === kept.size && table.rows.every((row) => kept.has(row.keyValue))) return;
  await tx.execute(table.deleteAll);
  for (const [key, row] of kept) await table.insert(key, row);
}
