import { problem, type Problem } from '../errors/problem';
import { listSessions, revokeSession, revokeSessions, type SessionManagementDeps, type SessionRevoker } from '../sessions/manage-sessions';
import type { SessionView } from '../sessions/session-view';
import type { User } from '../users/user';
import { findChildById } from '../children/child-account-store';

/**
 * `GET`/`DELETE /api/v1/children/{id}/sessions` and `DELETE /api/v1/children/{id}/sessions/{sessionId}`:
 * a parent sees and ends a child's sessions, audited as `authn_token_revoked` with reason
 * `parent_revoked`. A child's token gets 403 (children do not manage accounts); another parent's
 * child, a deleted child or an unknown id gets 404.
 */

type Outcome<T> = { ok: true; value: T } | { ok: false; problem: Problem };

const notFound = (): { ok: false; problem: Problem } => ({ ok: false, problem: problem('not_found', { detail: 'No such child account.' }) });
const sessionNotFound = (): { ok: false; problem: Problem } => ({ ok: false, problem: problem('not_found', { detail: 'No such session.' }) });

/** The parent's own child, not deleted, as the revoker of its sessions; else the problem to answer. */
async function asParentOf(parent: User, childId: string, deps: SessionManagementDeps): Promise<Outcome<SessionRevoker>> {
  if (parent.accountType !== 'adult') return { ok: false, problem: problem('forbidden', { detail: 'Only adults manage child accounts.' }) };
  const child = await findChildById(await deps.database.get(), childId);
  if (!child || child.parentId !== parent.id || child.deletedAt !== null) return notFound();
  return { ok: true, value: { actorUserId: parent.id, currentRowId: null } };
}

/** The child's live sessions, newest first; none is `current` (the parent's own session is not among them). */
export async function listChildSessions(parent: User, childId: string, deps: SessionManagementDeps): Promise<Outcome<SessionView[]>> {
  const revoker = await asParentOf(parent, childId, deps);
  if (!revoker.ok) return revoker;
  return { ok: true, value: await listSessions(childId, null, deps) };
}

/** Ends one of the child's live sessions by the id the list shows. */
export async function revokeChildSession(
  parent: User,
  childId: string,
  publicId: string,
  deps: SessionManagementDeps,
): Promise<Outcome<undefined>> {
  const revoker = await asParentOf(parent, childId, deps);
  if (!revoker.ok) return revoker;
  return (await revokeSession(childId, publicId, revoker.value, deps)) ? { ok: true, value: undefined } : sessionNotFound();
}

/** Ends every live session of the child; resolves with how many. */
export async function revokeChildSessions(parent: User, childId: string, deps: SessionManagementDeps): Promise<Outcome<number>> {
  const revoker = await asParentOf(parent, childId, deps);
  if (!revoker.ok) return revoker;
  return { ok: true, value: await revokeSessions(childId, revoker.value, true, deps) };
}
