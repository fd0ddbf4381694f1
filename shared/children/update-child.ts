import { lockUsernameThrottle, resetUsernameFailures } from '../auth/child/sign-in-throttle';
import { usernameThrottleKey } from '../auth/child/throttle-keys';
import type { TokenRevocationReason } from '../audit/audit-event';
import { writeAudit } from '../audit/write-audit';
import type { SqlExecutor } from '../db/database';
import { problem, type Problem } from '../errors/problem';
import { endUserSessions } from '../sessions/session-store';
import type { Section, User } from '../users/user';
import { updateUserStatus } from '../users/user-store';
import { toChildAccountView, type ChildAccount, type ChildAccountView } from './child-account';
import { findChildById, markChildDeleted, setChildSecret, updateChildScopes } from './child-account-store';
import { checkNewSecret, type ChildManagementDeps, type ChildSecretInput } from './create-child';

export interface ChildPatch {
  scopes?: readonly Section[];
  secret?: ChildSecretInput;
  status?: 'active' | 'disabled';
}

type ChildChange = { ok: true; child: ChildAccountView } | { ok: false; problem: Problem };

const notFound = (): { ok: false; problem: Problem } => ({ ok: false, problem: problem('not_found', { detail: 'No such child account.' }) });

/** The parent's own child, not deleted; anyone else's child is "not found", never "forbidden". */
async function ownChild(parent: User, childId: string, deps: ChildManagementDeps): Promise<ChildAccount | undefined> {
  if (parent.accountType !== 'adult') return undefined;
  const child = await findChildById(await deps.database.get(), childId);
  return child && child.parentId === parent.id && child.deletedAt === null ? child : undefined;
}

/**
 * PATCH /api/v1/children/{id}: new scopes, a new secret (which clears the lock and revokes the
 * child's sessions) and/or a new status (disabling revokes the sessions), with one
 * `child_updated` row and an `authn_token_revoked` row per revocation, in one transaction.
 */
export async function updateChild(parent: User, childId: string, patch: ChildPatch, deps: ChildManagementDeps): Promise<ChildChange> {
  const child = await ownChild(parent, childId, deps);
  if (!child) return notFound();
  if (patch.secret) {
    const weak = checkNewSecret(patch.secret, child.username);
    if (weak) return { ok: false, problem: weak };
  }
  const newHash = patch.secret ? await deps.hasher.hash(patch.secret.value) : undefined;
  const now = deps.clock.now().toISOString();
  const db = await deps.database.get();
  const usernameKey = usernameThrottleKey(deps.pepper, child.username);
  await db.transaction(async (tx) => {
    // A sign-in settling on this child holds the same lock: one waits for the other, never both
    // for each other's rows.
    await lockUsernameThrottle(tx, usernameKey);
    if (patch.scopes) await updateChildScopes(tx, child.userId, [...new Set(patch.scopes)]);
    if (patch.secret && newHash) {
      await setChildSecret(tx, child.userId, { hash: newHash, kind: patch.secret.kind }, now);
      await resetUsernameFailures(tx, usernameKey);
      await revokeChildSessions(tx, parent, child, 'secret_changed', now, deps);
    }
    if (patch.status && patch.status !== child.status) {
      await updateUserStatus(tx, child.userId, patch.status, now);
      if (patch.status === 'disabled') await revokeChildSessions(tx, parent, child, 'account_disabled', now, deps);
    }
    await writeAudit(
      tx,
      {
        eventType: 'child_updated',
        outcome: 'success',
        actorUserId: parent.id,
        subjectUserId: child.userId,
        details: {
          ...(patch.scopes ? { scopes: [...new Set(patch.scopes)].join(',') } : {}),
          ...(patch.secret ? { signInMethodChanged: true, signInMethod: patch.secret.kind } : {}),
          ...(patch.status ? { status: patch.status } : {}),
        },
      },
      deps,
    );
  });
  deps.logger.info(
    { childUserId: child.userId, scopesChanged: Boolean(patch.scopes), secretChanged: Boolean(patch.secret), status: patch.status },
    'child account updated',
  );
  const updated = await findChildById(db, child.userId);
  if (!updated) throw new Error('child account vanished during its update');
  return { ok: true, child: toChildAccountView(updated) };
}

/**
 * DELETE /api/v1/children/{id}: the account is disabled and marked deleted (its audit history and
 * its username stay), and its sessions are revoked.
 */
export async function deleteChild(parent: User, childId: string, deps: ChildManagementDeps): Promise<{ ok: true } | { ok: false; problem: Problem }> {
  const child = await ownChild(parent, childId, deps);
  if (!child) return notFound();
  const now = deps.clock.now().toISOString();
  const db = await deps.database.get();
  await db.transaction(async (tx) => {
    await lockUsernameThrottle(tx, usernameThrottleKey(deps.pepper, child.username));
    await markChildDeleted(tx, child.userId, now);
    await updateUserStatus(tx, child.userId, 'disabled', now);
    await revokeChildSessions(tx, parent, child, 'account_disabled', now, deps);
    await writeAudit(
      tx,
      { eventType: 'child_updated', outcome: 'success', actorUserId: parent.id, subjectUserId: child.userId, details: { deleted: true } },
      deps,
    );
  });
  deps.logger.info({ childUserId: child.userId }, 'child account deleted');
  return { ok: true };
}

async function revokeChildSessions(
  tx: SqlExecutor,
  parent: User,
  child: ChildAccount,
  reason: TokenRevocationReason,
  now: string,
  deps: ChildManagementDeps,
): Promise<void> {
  const revoked = await endUserSessions(tx, child.userId, reason, now);
  if (revoked === 0) return;
  await writeAudit(
    tx,
    {
      eventType: 'authn_token_revoked',
      outcome: 'success',
      actorUserId: parent.id,
      subjectUserId: child.userId,
      reason,
      details: { sessions: revoked },
    },
    deps,
  );
}
