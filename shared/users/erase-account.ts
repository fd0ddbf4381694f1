import { createHmac } from 'node:crypto';
import { resetUsernameFailures } from '../throttles/sign-in-throttle';
import { usernameThrottleKey } from '../throttles/throttle-keys';
import { writeAudit, type AuditWriterDeps } from '../audit/write-audit';
import type { SqlExecutor, TransactionExecutor } from '../db/database';
import type { DatabaseProvider } from '../db/lazy-database';
import { problem, type Problem } from '../errors/problem';
import type { Logger } from '../logging/logger';
import { userSettingsLock } from './push-tokens';
import { ADMINS_LOCK, requireAdmin } from './admin-role';
import type { User } from './user';
import { findUserById } from './user-store';
import {
  countChildrenNotErased,
  countOtherActiveAdmins,
  deleteChildCredentials,
  deleteUnpublishedAnnouncements,
  deleteUserDevicesAndPreferences,
  deleteUserSessions,
  reserveUsername,
  tombstoneInactiveAdult,
  tombstoneUser,
} from './account-erasure-store';

/**
 * Erasure of an account (issue 11, item 5): in one transaction, everything that identifies the
 * person goes (contact data, the identity provider's subject, a child's username and secret hash,
 * sessions, devices, preferences, an adult's unpublished announcements), and the Users row stays
 * as a tombstone with status `erased`, so the audit rows, consents and announcements that hold its
 * id stay meaningful. Erasure is one `account_erased` audit row. What stays is ids and facts only:
 * audit rows (append-only), consent records (the legal record of what the parent agreed to and
 * when it was withdrawn), delivery ledgers, and published announcements the person authored
 * (community content, now by a tombstone).
 */

/**
 * How long an erased child's username stays taken: a new child cannot take it (and with it the old
 * one's identity among the people who knew it) for 30 days. A constant rather than a setting: it is
 * a promise to families, not a tuning knob.
 */
export const USERNAME_QUARANTINE_DAYS = 30;

/**
 * The key an erased username is reserved under: HMAC-SHA256 under the pepper, so the reservation
 * table names no child. A label of its own keeps it apart from the throttle's key of the same name.
 */
export function reservedUsernameKey(pepper: string, username: string): string {
  if (pepper.length === 0) throw new Error('The child secret pepper must not be empty');
  return createHmac('sha256', pepper).update(`username-reservation:${username}`).digest('hex');
}

/**
 * The lock of an adult's account: taken by its erasure, the creation of one of its children (so
 * no child appears after the erasure counted them) and its sign-in (which re-reads the account
 * under it, so no session or contact data lands on a tombstone).
 */
export function parentAccountLock(parentId: string): string {
  return `account:children-of:${parentId}`;
}

export interface ErasureDeps extends AuditWriterDeps {
  database: DatabaseProvider;
  logger: Logger;
}

/** What one erasure removed, for its audit row and log line (counts only). */
export interface ErasureFacts {
  sessions: number;
  devices: number;
  /** An adult's: the announcements they wrote that were not published. */
  announcements?: number;
}

/**
 * Erases a child inside the caller's transaction, which holds the child's username lock
 * (`lockUsernameThrottle`) and has already deleted the account and withdrawn its consent: the
 * credentials row goes, the username is reserved for `USERNAME_QUARANTINE_DAYS` and its failure
 * count cleared, and the Users row becomes a tombstone.
 * @returns undefined when the child was erased already.
 */
export async function eraseChildInTransaction(
  tx: TransactionExecutor,
  erasure: { parentUserId: string; childUserId: string; username: string },
  deps: AuditWriterDeps & { pepper: string },
): Promise<ErasureFacts | undefined> {
  const now = deps.clock.now();
  // As an adult's erasure: a device registration or preferences change of the child that raced
  // it waits, then finds the tombstone. No statement before it touched a row this lock guards.
  await tx.lock(userSettingsLock(erasure.childUserId));
  if (!(await tombstoneUser(tx, erasure.childUserId, now.toISOString()))) return undefined;
  const facts = await removePersonalRows(tx, erasure.childUserId);
  await deleteChildCredentials(tx, erasure.childUserId);
  const releasedAt = new Date(now.getTime() + USERNAME_QUARANTINE_DAYS * 24 * 60 * 60 * 1000).toISOString();
  await reserveUsername(tx, reservedUsernameKey(deps.pepper, erasure.username), now.toISOString(), releasedAt);
  await resetUsernameFailures(tx, usernameThrottleKey(deps.pepper, erasure.username));
  await auditErasure(tx, { actorUserId: erasure.parentUserId, subjectUserId: erasure.childUserId, accountType: 'child', facts }, deps);
  return facts;
}

type ErasureResult = { ok: true } | { ok: false; problem: Problem };

/**
 * DELETE /api/v1/me: an adult erases their own account. Refused while they have children that are
 * not erased (409 `children_not_erased`): a child's erasure is its parent's deliberate act, with
 * the withdrawal of consent it records, so it is never a side effect (README, "Export and
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

/** An adult's rows: as anyone's, and the announcements they wrote that never got published. */
async function removeAdultRows(tx: SqlExecutor, userId: string): Promise<ErasureFacts> {
  const facts = await removePersonalRows(tx, userId);
  return { ...facts, announcements: await deleteUnpublishedAnnouncements(tx, userId) };
}

async function removePersonalRows(tx: SqlExecutor, userId: string): Promise<ErasureFacts> {
  const sessions = await deleteUserSessions(tx, userId);
  const devices = await deleteUserDevicesAndPreferences(tx, userId);
  return { sessions, devices };
}

async function auditErasure(
  tx: SqlExecutor,
  erasure: { actorUserId: string; subjectUserId: string; accountType: 'adult' | 'child'; facts: ErasureFacts; from?: string },
  deps: AuditWriterDeps,
): Promise<void> {
  const { facts } = erasure;
  await writeAudit(
    tx,
    {
      eventType: 'account_erased',
      outcome: 'success',
      actorUserId: erasure.actorUserId,
      subjectUserId: erasure.subjectUserId,
      details: {
        accountType: erasure.accountType,
        sessions: facts.sessions,
        devices: facts.devices,
        ...(facts.announcements === undefined ? {} : { announcements: facts.announcements }),
        // An administrator's erasure: the status the account had.
        ...(erasure.from ? { from: erasure.from } : {}),
      },
    },
    deps,
  );
}
