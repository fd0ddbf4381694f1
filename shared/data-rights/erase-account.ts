import { problem, type Problem } from '../errors/problem';
import type { AuditWriterDeps } from '../audit/write-audit';
import type { TransactionExecutor } from '../db/database';
import type { DatabaseProvider } from '../db/lazy-database';
import type { Logger } from '../logging/logger';
import { auditErasure, parentAccountLock, removeAdultRows } from '../users/account-erasure';
import { countChildrenNotErased, countOtherActiveAdmins, tombstoneInactiveAdult, tombstoneUser } from '../users/account-erasure-store';
import { ADMINS_LOCK, requireAdmin } from '../users/admin-role';
import { userSettingsLock } from '../users/push-tokens';
import type { User } from '../users/user';
import { findUserById } from '../users/user-store';

// An account's erasure as its owner or an administrator asks for it. What erasure removes in its one
// transaction, and what stays: `users/account-erasure.ts`.

export interface ErasureDeps extends AuditWriterDeps {
  database: DatabaseProvider;
  logger: Logger;
}

type ErasureResult = { ok: true } | { ok: false; problem: Problem };

/**
 * DELETE /api/v1/me: an adult erases their own account. Refused while they have children that are
 * not erased (409 `children_not_erased`): a child's erasure is its parent's deliberate act, with
 * the withdrawal of consent it records, so it is never a side effect (docs/api.md, "Export and
 * erasure"). Refused to the only active administrator (409 `invalid_transition`): nobody could
 * approve or promote anyone afterwards. A child's token gets 403: a child's account is erased by
 * its parent.
 */
export async function eraseOwnAccount(caller: User, deps: ErasureDeps): Promise<ErasureResult> {
  if (caller.accountType !== 'adult') {
    return { ok: false, problem: problem('forbidden', { detail: "A child's account is erased by its parent." }) };
  }
  const db = await deps.database.get();
  const outcome = await db.transaction(async (tx: TransactionExecutor) => {
    // Shared with the creation of a child of this parent (no child can appear after the count)
    // and with the account's sign-in (no session starts on the tombstone).
    await tx.lock(parentAccountLock(caller.id));
    const children = await countChildrenNotErased(tx, caller.id);
    if (children > 0) return { kind: 'children' as const, children };
    if (caller.role === 'admin') {
      // Counted under the lock a demotion takes too: two administrators erasing themselves at
      // once, or one erasing themselves while demoting the other, leave one of them.
      await tx.lock(ADMINS_LOCK);
      if ((await countOtherActiveAdmins(tx, caller.id)) === 0) return { kind: 'last_admin' as const };
    }
    await tx.lock(userSettingsLock(caller.id));
    if (!(await tombstoneUser(tx, caller.id, deps.clock.now().toISOString()))) return { kind: 'gone' as const };
    const facts = await removeAdultRows(tx, caller.id);
    await auditErasure(tx, { actorUserId: caller.id, subjectUserId: caller.id, accountType: 'adult', facts }, deps);
    return { kind: 'erased' as const, facts };
  });
  if (outcome.kind === 'children') return { ok: false, problem: childrenNotErased(outcome.children) };
  if (outcome.kind === 'last_admin') {
    return {
      ok: false,
      problem: problem('invalid_transition', {
        detail: 'This is the only active administrator: make another adult an administrator before erasing this account.',
      }),
    };
  }
  // A concurrent erasure of the same account got there first: its session is gone with it.
  if (outcome.kind === 'gone') return { ok: false, problem: problem('unauthenticated', { detail: 'The account is erased.' }) };
  deps.logger.info({ erasedUserId: caller.id, accountType: 'adult', ...outcome.facts }, 'account erased');
  return { ok: true };
}

/**
 * DELETE /api/v1/users/{id} (admin): erases an adult who never got, or no longer has, a session of
 * their own to do it with: one pending approval or disabled. An active adult erases themselves
 * (409 `invalid_transition`), so no administrator erases a working account; an erased one is 404,
 * a child's id 400 (children are erased by their parents). Refused while the adult has children
 * that are not erased (409 `children_not_erased`), as their own erasure is. Audited as
 * `account_erased` with the administrator as actor and the status the account had.
 */
export async function eraseInactiveAdult(admin: User, userId: string, deps: ErasureDeps): Promise<ErasureResult> {
  const refused = requireAdmin(admin);
  if (refused) return { ok: false, problem: refused };
  const db = await deps.database.get();
  const outcome = await db.transaction(async (tx: TransactionExecutor) => {
    await tx.lock(parentAccountLock(userId));
    await tx.lock(userSettingsLock(userId));
    // Read under the account's lock: a sign-in of this adult waits for the erasure.
    const target = await findUserById(tx, userId);
    if (!target || target.status === 'erased') return { kind: 'refused' as const, problem: problem('not_found', { detail: 'No such user.' }) };
    if (target.accountType !== 'adult') return { kind: 'refused' as const, problem: problem('invalid_request', { detail: 'Child accounts are erased by their parents.' }) };
    if (target.status === 'active') {
      return { kind: 'refused' as const, problem: problem('invalid_transition', { detail: 'An active adult erases their own account (DELETE /api/v1/me).' }) };
    }
    const children = await countChildrenNotErased(tx, userId);
    if (children > 0) return { kind: 'refused' as const, problem: childrenNotErased(children) };
    // Conditional on the status: an approval that committed meanwhile (it takes no lock) wins.
    if (!(await tombstoneInactiveAdult(tx, userId, deps.clock.now().toISOString()))) return { kind: 'changed' as const };
    const facts = await removeAdultRows(tx, userId);
    await auditErasure(tx, { actorUserId: admin.id, subjectUserId: userId, accountType: 'adult', facts, from: target.status }, deps);
    return { kind: 'erased' as const, facts, from: target.status };
  });
  if (outcome.kind === 'refused') return { ok: false, problem: outcome.problem };
  // Approved between the read and the write: decide again from the status it has now.
  if (outcome.kind === 'changed') return eraseInactiveAdult(admin, userId, deps);
  deps.logger.info({ erasedUserId: userId, accountType: 'adult', fromStatus: outcome.from, ...outcome.facts }, 'account erased by an administrator');
  return { ok: true };
}

function childrenNotErased(children: number): Problem {
  return problem('children_not_erased', {
    detail: `This account has ${children} child account(s) that are not erased: erase each with DELETE /api/v1/children/{id}?erase=true first.`,
  });
}
