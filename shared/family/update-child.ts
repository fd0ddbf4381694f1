import { lockUsernameThrottle, resetUsernameFailures } from '../throttles/sign-in-throttle';
import { usernameThrottleKey } from '../throttles/throttle-keys';
import type { TokenRevocationReason } from '../audit/audit-event';
import { writeAudit } from '../audit/write-audit';
import type { SqlExecutor } from '../db/database';
import { problem, type Problem } from '../errors/problem';
import { endUserSessions } from '../sessions/session-store';
import type { Section, User } from '../users/user';
import { updateUserStatus } from '../users/user-store';
import { toChildAccountView, type ChildAccount, type ChildAccountView } from '../children/child-account';
import { eraseChildInTransaction } from '../users/account-erasure';
import { findChildById, markChildDeleted, setChildSecret, updateChildScopes } from '../children/child-account-store';
import { findConsentInForce } from '../children/child-consent-store';
import { checkNewSecret, type ChildManagementDeps, type ChildSecretInput } from './create-child';
import { recordConsent, withdrawAllConsent } from './record-consent';

export interface ChildPatch {
  scopes?: readonly Section[];
  secret?: ChildSecretInput;
  status?: 'active' | 'disabled';
}

type ChildChange = { ok: true; child: ChildAccountView } | { ok: false; problem: Problem };

const notFound = (): { ok: false; problem: Problem } => ({ ok: false, problem: problem('not_found', { detail: 'No such child account.' }) });
/** A child's token on the parent's endpoints: 403, as on every endpoint of the account holder. */
const forbidden = (): { ok: false; problem: Problem } => ({ ok: false, problem: problem('forbidden', { detail: 'Only adults manage child accounts.' }) });

/**
 * The parent's own child, not deleted unless `includeDeleted`; anyone else's child is "not found",
 * never "forbidden".
 */
async function ownChild(parent: User, childId: string, deps: ChildManagementDeps, includeDeleted = false): Promise<ChildAccount | undefined> {
  if (parent.accountType !== 'adult') return undefined;
  const child = await findChildById(await deps.database.get(), childId);
  return child && child.parentId === parent.id && (includeDeleted || child.deletedAt === null) ? child : undefined;
}

/**
 * PATCH /api/v1/children/{id}: new scopes, a new secret (which clears the lock and revokes the
 * child's sessions) and/or a new status (disabling revokes the sessions), with one
 * `child_updated` row and an `authn_token_revoked` row per revocation, in one transaction. New
 * scopes are a new consent of the parent (`recordConsent`), in the same transaction.
 */
export async function updateChild(parent: User, childId: string, patch: ChildPatch, deps: ChildManagementDeps): Promise<ChildChange> {
  if (parent.accountType !== 'adult') return forbidden();
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
  let consentId: string | undefined;
  const changed = await db.transaction(async (tx) => {
    // A sign-in settling on this child holds the same lock: one waits for the other, never both
    // for each other's rows.
    await lockUsernameThrottle(tx, usernameKey);
    // Read again under the lock, which a DELETE (and an erasure) takes too: one that committed
    // since `child` was read leaves nothing to change, and no consent may be recorded for a
    // deleted child. The sections open until now and the status come from this row too.
    const current = await findChildById(tx, child.userId);
    if (!current || current.deletedAt !== null) return false;
    const previousSections = patch.scopes ? current.scopes : [];
    if (patch.scopes) await updateChildScopes(tx, child.userId, [...new Set(patch.scopes)]);
    if (patch.secret && newHash) {
      await setChildSecret(tx, child.userId, { hash: newHash, kind: patch.secret.kind }, now);
      await resetUsernameFailures(tx, usernameKey);
      await revokeChildSessions(tx, parent, child, 'secret_changed', now, deps);
    }
    if (patch.status && patch.status !== current.status) {
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
    if (patch.scopes) {
      consentId = await recordConsent(
        tx,
        { parentUserId: parent.id, childUserId: child.userId, sections: patch.scopes, previousSections },
        deps,
      );
    }
    return true;
  });
  if (!changed) return notFound();
  deps.logger.info(
    {
      childUserId: child.userId,
      scopesChanged: Boolean(patch.scopes),
      secretChanged: Boolean(patch.secret),
      status: patch.status,
      ...(consentId ? { consentId } : {}),
    },
    'child account updated',
  );
  const updated = await findChildById(db, child.userId);
  // Erased by a DELETE that came right after this change committed: there is no account to show.
  if (!updated) return notFound();
  return { ok: true, child: toChildAccountView(updated) };
}

/**
 * DELETE /api/v1/children/{id}: the account is disabled and marked deleted (its audit history and
 * its username stay), and its sessions are revoked. With `erase` (`?erase=true`) the parent also
 * withdraws all consent (`withdrawAllConsent`: the consent in force is marked withdrawn, one
 * `consent_withdrawn` row names the sections) and the child is erased (`eraseChildInTransaction`:
 * its personal data removed, the Users row a tombstone, the username reserved for a quarantine),
 * all in one transaction. A child deleted earlier can still be erased, whether or not a consent of
 * it is in force (children from before consent records have none); an erased child is not found.
 */
export async function deleteChild(
  parent: User,
  childId: string,
  deps: ChildManagementDeps,
  options: { erase?: boolean } = {},
): Promise<{ ok: true } | { ok: false; problem: Problem }> {
  const erase = options.erase === true;
  if (parent.accountType !== 'adult') return forbidden();
  const child = await ownChild(parent, childId, deps, erase);
  if (!child) return notFound();
  const db = await deps.database.get();
  const now = deps.clock.now().toISOString();
  const done = await db.transaction(async (tx) => {
    await lockUsernameThrottle(tx, usernameThrottleKey(deps.pepper, child.username));
    // Read under the lock: a concurrent DELETE may have got here first (an erased child has no row).
    const current = await findChildById(tx, child.userId);
    if (!current) return undefined;
    const deleted = current.deletedAt !== null;
    // Deleting a deleted child finds nothing to do; erasing one still does.
    if (deleted && !erase) return undefined;
    if (!deleted) {
      await markChildDeleted(tx, child.userId, now);
      await updateUserStatus(tx, child.userId, 'disabled', now);
      await revokeChildSessions(tx, parent, child, 'account_disabled', now, deps);
      await writeAudit(
        tx,
        { eventType: 'child_updated', outcome: 'success', actorUserId: parent.id, subjectUserId: child.userId, details: { deleted: true } },
        deps,
      );
    }
    if (!erase) return {};
    // Nothing to withdraw once withdrawn (a child erased before erasure removed its data): no second row.
    if (current.scopes.length > 0 || (await findConsentInForce(tx, child.userId))) {
      await withdrawAllConsent(tx, { parentUserId: parent.id, childUserId: child.userId, openSections: current.scopes }, deps);
    }
    return (await eraseChildInTransaction(tx, { parentUserId: parent.id, childUserId: child.userId, username: current.username }, deps)) ?? {};
  });
  if (!done) return notFound();
  deps.logger.info({ childUserId: child.userId, consentWithdrawn: erase, erased: erase, ...done }, 'child account deleted');
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
