import type { SqlExecutor } from '../../database';
import { canonicalizeStoredContacts } from '../canonical-contacts';

/**
 * Identifiers compare exactly. SQLite's columns already do (BINARY collation, trailing
 * spaces count), so only the data changes: stored addresses and numbers take the canonical form
 * the app now writes. Nothing to revert: the canonical form is also a valid stored form.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await canonicalizeStoredContacts(tx);
}

export async function down(): Promise<void> {
  // Data in canonical form stays valid under the previous schema.
}
