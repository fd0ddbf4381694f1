import type { DatabaseProvider } from '../db/lazy-database';
import { problem, type Problem } from '../errors/problem';
import type { User } from '../users/user';
import { findUserById } from '../users/user-store';
import { toChildConsentView, type ChildConsentView } from '../children/child-consent';
import { listConsentsOfChild } from '../children/child-consent-store';

/** The most consents one answer lists: a child's sections change a few times a year, so this is years of them. */
export const MAX_LISTED_CONSENTS = 100;

/**
 * `GET /api/v1/children/{id}/consents`: the parent's consents for the child, newest first (at most
 * `MAX_LISTED_CONSENTS`). A deleted child's too: its consent stays on record, and the parent may
 * still withdraw it (`DELETE …?erase=true`); an erased child's too (the record of a withdrawal). A child's token gets 403 (children do not manage
 * accounts); another parent's child or an unknown id gets 404.
 */
export async function listChildConsents(
  parent: User,
  childId: string,
  deps: { database: DatabaseProvider },
): Promise<{ ok: true; value: ChildConsentView[] } | { ok: false; problem: Problem }> {
  if (parent.accountType !== 'adult') return { ok: false, problem: problem('forbidden', { detail: 'Only adults manage child accounts.' }) };
  const db = await deps.database.get();
  // The Users row, not the account: an erased child's consents stay on record for its parent.
  const child = await findUserById(db, childId);
  if (!child || child.accountType !== 'child' || child.parentId !== parent.id) return { ok: false, problem: problem('not_found', { detail: 'No such child account.' }) };
  const consents = await listConsentsOfChild(db, childId, MAX_LISTED_CONSENTS);
  return { ok: true, value: consents.map(toChildConsentView) };
}
