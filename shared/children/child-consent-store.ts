import type { Database, SqlExecutor } from '../db/database';
import { limitClause } from '../db/dialect';
import type { ChildConsent } from './child-consent';
import { parseStoredScopes } from './stored-scopes';

/**
 * The `ChildConsents` table. Writes take an executor to join the caller's transaction, which holds
 * the child's lock (the username lock every change of a child account takes): the revision is
 * counted and the consent in force replaced under it.
 */

const CONSENT_COLUMNS = 'id, childUserId, parentUserId, revision, termsVersion, sections, method, givenAt, replacedAt, withdrawnAt';

interface ConsentRow extends Omit<ChildConsent, 'sections'> {
  sections: string;
}

function toChildConsent(row: ConsentRow): ChildConsent {
  return { ...row, sections: parseStoredScopes(row.sections) };
}

export type NewChildConsent = Omit<ChildConsent, 'revision' | 'replacedAt' | 'withdrawnAt'>;

/**
 * Stores a consent in force as the child's next revision. The child must have none in force (a
 * unique index refuses a second one): replace it first with `endConsent`.
 */
export async function insertConsent(tx: SqlExecutor, consent: NewChildConsent): Promise<void> {
  await tx.execute(
    `INSERT INTO ChildConsents (${CONSENT_COLUMNS})
     SELECT @id, @childUserId, @parentUserId, COALESCE(MAX(revision), 0) + 1, @termsVersion, @sections, @method, @givenAt, NULL, NULL
     FROM ChildConsents WHERE childUserId = @childUserId`,
    {
      id: consent.id,
      childUserId: consent.childUserId,
      parentUserId: consent.parentUserId,
      termsVersion: consent.termsVersion,
      sections: JSON.stringify(consent.sections),
      method: consent.method,
      givenAt: consent.givenAt,
    },
  );
}

/** The child's consent in force (neither replaced nor withdrawn), if any. */
export async function findConsentInForce(db: SqlExecutor, childUserId: string): Promise<ChildConsent | undefined> {
  const rows = await db.query<ConsentRow>(
    `SELECT ${CONSENT_COLUMNS} FROM ChildConsents WHERE childUserId = @childUserId AND replacedAt IS NULL AND withdrawnAt IS NULL`,
    { childUserId },
  );
  return rows[0] ? toChildConsent(rows[0]) : undefined;
}

/**
 * Ends a consent in force: `replaced` by a later one, or `withdrawn` by the parent.
 * @returns false when it was no longer in force.
 */
export async function endConsent(tx: SqlExecutor, id: string, how: 'replaced' | 'withdrawn', now: string): Promise<boolean> {
  const sql =
    how === 'replaced'
      ? 'UPDATE ChildConsents SET replacedAt = @now WHERE id = @id AND replacedAt IS NULL AND withdrawnAt IS NULL'
      : 'UPDATE ChildConsents SET withdrawnAt = @now WHERE id = @id AND replacedAt IS NULL AND withdrawnAt IS NULL';
  return (await tx.execute(sql, { id, now })) === 1;
}

/** The child's newest `limit` consents, newest first. */
export async function listConsentsOfChild(db: Database, childUserId: string, limit: number): Promise<ChildConsent[]> {
  const rows = await db.query<ConsentRow>(
    `SELECT ${CONSENT_COLUMNS} FROM ChildConsents WHERE childUserId = @childUserId
     ORDER BY revision DESC ${limitClause(db.dialect, '@limit')}`,
    { childUserId, limit },
  );
  return rows.map(toChildConsent);
}
