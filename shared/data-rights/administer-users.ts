import { writeAudit, type AuditWriterDeps } from '../audit/write-audit';
import type { DatabaseProvider } from '../db/lazy-database';
import { problem, type Problem } from '../errors/problem';
import { endUserSessions } from '../sessions/session-store';
import { ADMINS_LOCK, requireAdmin } from '../users/admin-role';
import type { AdultRole, User } from '../users/user';
import { findUserById, transitionUserStatus, updateUserRole } from '../users/user-store';
import type { Logger } from '../logging/logger';

/** The ports administering users takes: it reads and changes users, audits and logs each change. */
export interface AdministrationDeps extends AuditWriterDeps {
  database: DatabaseProvider;
  logger: Logger;
}

type AdminResult = { ok: true; user: User } | { ok: false; problem: Problem };

async function adultTarget(userId: string, deps: AdministrationDeps): Promise<User | Problem> {
  const user = await findUserById(await deps.database.get(), userId);
  // An erased account is a tombstone: nothing about it can be approved or changed any more.
  if (!user || user.status === 'erased') return problem('not_found', { detail: 'No such user.' });
  if (user.accountType !== 'adult') return problem('invalid_request', { detail: 'Child accounts are managed by their parents.' });
  return user;
}

/**
 * POST /api/v1/users/{id}/approve: a user waiting for approval becomes active (`user_approved`).
 * Approving an active user changes nothing; a disabled user cannot be approved back (409).
 */
export async function approveUser(admin: User, userId: string, deps: AdministrationDeps): Promise<AdminResult> {
  const refused = requireAdmin(admin);
  if (refused) return { ok: false, problem: refused };
  const target = await adultTarget(userId, deps);
  if ('kind' in target) return { ok: false, problem: target };
  if (target.status === 'active') return { ok: true, user: target };
  if (target.status !== 'pending_approval') {
    return { ok: false, problem: problem('invalid_transition', { detail: 'Only accounts pending approval can be approved.' }) };
  }
  const now = deps.clock.now().toISOString();
  const db = await deps.database.get();
  const approved = await db.transaction(async (tx) => {
    // Conditional, so two administrators approving at once write one `user_approved` row.
    if (!(await transitionUserStatus(tx, target.id, 'pending_approval', 'active', now))) return false;
    await writeAudit(
      tx,
      { eventType: 'user_approved', outcome: 'success', actorUserId: admin.id, subjectUserId: target.id, details: { from: 'pending_approval', to: 'active' } },
      deps,
    );
    return true;
  });
  // Someone else changed the status meanwhile: answer from what it is now.
  if (!approved) return approveUser(admin, userId, deps);
  deps.logger.info({ subjectUserId: target.id, actorRole: admin.role }, 'user approved');
  return { ok: true, user: { ...target, status: 'active', updatedAt: now } };
}

/**
 * PATCH /api/v1/users/{id}/role: an administrator changes an adult's role. The change, the
 * revocation of all the user's sessions (their permissions changed) and the audit rows
 * (`authz_change` with the old and new role, `authn_token_revoked`) commit together.
 * Administrators cannot change their own role, so the last one cannot demote themselves by mistake.
 */
export async function changeUserRole(admin: User, userId: string, role: AdultRole, deps: AdministrationDeps): Promise<AdminResult> {
  const refused = requireAdmin(admin);
  if (refused) return { ok: false, problem: refused };
  if (userId === admin.id) {
    return { ok: false, problem: problem('forbidden', { detail: 'Administrators cannot change their own role.' }) };
  }
  const target = await adultTarget(userId, deps);
  if ('kind' in target) return { ok: false, problem: target };
  if (target.role === role) return { ok: true, user: target };
  const now = deps.clock.now().toISOString();
  const db = await deps.database.get();
  const revoked = await db.transaction(async (tx) => {
    if (target.role === 'admin') {
      await tx.lock(ADMINS_LOCK);
      // A demotion leaves its administrator as one: unless they erased themselves meanwhile.
      const actor = await findUserById(tx, admin.id);
      if (actor?.status !== 'active' || actor.role !== 'admin') return null;
    }
    // Conditional on the role just read, so the audited `from` is the role that really changed.
    if (!(await updateUserRole(tx, target.id, target.role as AdultRole, role, now))) return undefined;
    await writeAudit(
      tx,
      { eventType: 'authz_change', outcome: 'success', actorUserId: admin.id, subjectUserId: target.id, details: { from: target.role, to: role } },
      deps,
    );
    const count = await endUserSessions(tx, target.id, 'role_changed', now);
    if (count > 0) {
      await writeAudit(
        tx,
        {
          eventType: 'authn_token_revoked',
          outcome: 'success',
          actorUserId: admin.id,
          subjectUserId: target.id,
          reason: 'role_changed',
          details: { sessions: count },
        },
        deps,
      );
    }
    return count;
  });
  if (revoked === null) return { ok: false, problem: problem('forbidden', { detail: 'Administrators only.' }) };
  // A concurrent change won: decide again from the role as it is now.
  if (revoked === undefined) return changeUserRole(admin, userId, role, deps);
  deps.logger.info({ subjectUserId: target.id, fromRole: target.role, toRole: role, revokedSessions: revoked }, 'user role changed');
  return { ok: true, user: { ...target, role, updatedAt: now } };
}
