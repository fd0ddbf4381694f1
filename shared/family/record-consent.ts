import { writeAudit, type AuditWriterDeps } from '../audit/write-audit';
import type { SqlExecutor } from '../db/database';
import type { Section } from '../users/user';
import { canonicalSections, type ConsentMethod } from '../children/child-consent';
import { endConsent, findConsentInForce, insertConsent } from '../children/child-consent-store';

/**
 * The parent's consent for a child account, recorded in the transaction of the change it covers
 * (creating the child, changing its sections, erasing it), so there is never a child whose
 * sections were opened without a record, nor a record without its audit row. Each consent is a
 * `ChildConsents` row and a `consent_given` audit row; sections taken away are a
 * `consent_withdrawn` row. Callers hold the child's lock (the username lock of every change).
 */

export interface ConsentDeps extends AuditWriterDeps {
  /** `CONSENT_TERMS_VERSION`: the version of the terms the parent accepts. */
  consentTermsVersion: string;
}

/** The only method so far: the signed-in account holder confirmed with the request itself. */
const METHOD: ConsentMethod = 'account_holder_confirmation';

interface ConsentChange {
  parentUserId: string;
  childUserId: string;
  /** The sections the child may use from now on. */
  sections: readonly Section[];
  /** The sections the child could use before (none for a new child). */
  previousSections: readonly Section[];
}

/**
 * Records the parent's consent to the child's new sections, replacing the consent in force, and
 * the withdrawal of sections no longer open. Nothing is recorded when the consent in force already
 * covers exactly these sections under the current terms; the same sections under new terms are a
 * new consent (the parent confirmed them again).
 * @returns the new consent's id, or undefined when none was needed.
 */
export async function recordConsent(tx: SqlExecutor, change: ConsentChange, deps: ConsentDeps): Promise<string | undefined> {
  const sections = canonicalSections(change.sections);
  const inForce = await findConsentInForce(tx, change.childUserId);
  if (inForce && inForce.termsVersion === deps.consentTermsVersion && sameSections(inForce.sections, sections)) return undefined;

  const now = deps.clock.now().toISOString();
  // Replaced before the new one is stored: at most one consent per child is in force.
  if (inForce) await endConsent(tx, inForce.id, 'replaced', now);
  const id = deps.random.uuid();
  await insertConsent(tx, {
    id,
    childUserId: change.childUserId,
    parentUserId: change.parentUserId,
    termsVersion: deps.consentTermsVersion,
    sections,
    method: METHOD,
    givenAt: now,
  });
  await writeAudit(
    tx,
    {
      eventType: 'consent_given',
      outcome: 'success',
      actorUserId: change.parentUserId,
      subjectUserId: change.childUserId,
      targetType: 'consent',
      targetId: id,
      details: { termsVersion: deps.consentTermsVersion, sections: sections.join(','), method: METHOD },
    },
    deps,
  );
  const kept = new Set(sections);
  const removed = canonicalSections([...change.previousSections, ...(inForce?.sections ?? [])]).filter((section) => !kept.has(section));
  if (removed.length > 0) {
    await writeAudit(
      tx,
      {
        eventType: 'consent_withdrawn',
        outcome: 'success',
        actorUserId: change.parentUserId,
        subjectUserId: change.childUserId,
        // The consent that covered them; a child from before consent records has none.
        ...(inForce ? { targetType: 'consent', targetId: inForce.id } : {}),
        details: { sections: removed.join(','), allSections: false },
      },
      deps,
    );
  }
  return id;
}

/**
 * Withdraws all of the parent's consent for the child: the consent in force is marked withdrawn,
 * and one `consent_withdrawn` row names every section it or the child's account still held.
 * @param openSections the sections the child account holds now.
 * @returns the withdrawn consent's id (undefined for a child from before consent records).
 */
export async function withdrawAllConsent(
  tx: SqlExecutor,
  withdrawal: { parentUserId: string; childUserId: string; openSections: readonly Section[] },
  deps: AuditWriterDeps,
): Promise<string | undefined> {
  const inForce = await findConsentInForce(tx, withdrawal.childUserId);
  const now = deps.clock.now().toISOString();
  if (inForce) await endConsent(tx, inForce.id, 'withdrawn', now);
  const sections = canonicalSections([...withdrawal.openSections, ...(inForce?.sections ?? [])]);
  await writeAudit(
    tx,
    {
      eventType: 'consent_withdrawn',
      outcome: 'success',
      actorUserId: withdrawal.parentUserId,
      subjectUserId: withdrawal.childUserId,
      ...(inForce ? { targetType: 'consent', targetId: inForce.id } : {}),
      details: { sections: sections.join(','), allSections: true },
    },
    deps,
  );
  return inForce?.id;
}

function sameSections(a: readonly Section[], b: readonly Section[]): boolean {
  const left = canonicalSections(a);
  const right = canonicalSections(b);
  return left.length === right.length && left.every((section, index) => section === right[index]);
}
