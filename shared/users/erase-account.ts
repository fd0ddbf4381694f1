import { createHmac } from 'node:crypto';
import { resetUsernameFailures } from '../auth/child/sign-in-throttle';
import { usernameThrottleKey } from '../auth/child/throttle-keys';
import { writeAudit, type AuditWriterDeps } from '../audit/write-audit';
import type { SqlExecutor, TransactionExecutor } from '../db/database';
import type { DatabaseProvider } from '../db/lazy-database';
import { problem, type Problem } from '../errors/problem';
import type { Logger } from '../logging/logger';
import type { User } from './user';
import {
  countChildrenNotErased,
  deleteChildCredentials,
  deleteUserDevicesAndPreferences,
  deleteUserSessions,
  reserveUsername,
  tombstoneUser,
} from './account-erasure-store';

/**
 * Erasure of an account (issue 11, item 5): in one transaction, everything that identifies the
 * person goes (contact data, the identity provider's subject, a child's username and secret hash,
 * sessions, devices, preferences), and the Users row stays as a tombstone with status `erased`, so
 * the audit rows, consents and announcements that hold its id stay meaningful. Erasure is one
 * `account_erased` audit row. What stays is ids and facts only: audit rows (append-only), consent
 * records (the legal record of what the parent agreed to and when it was withdrawn), delivery
 * ledgers, and announcements the person authored (community content, now by a tombstone).
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

/** The lock a parent's erasure and the creation of one of their children share (see `eraseOwnAccount`). */
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
}

/**
 * Erases a child inside the caller's transaction, which holds the child's username lock
 * (`lockUsernameThrottle`) and has already deleted the account and withdrawn its consent: the
 * credentials row goes, the username is reserved for `USERNAME_QUARANTINE_DAYS` and its failure
 * count cleared, and the Users row becomes a tombstone.
 * @returns undefined when the child was erased already.
 */
export async function eraseChildInTransaction(
  tx: SqlExecutor,
  erasure: { parentUserId: string; childUserId: string; username: string },
  deps: AuditWriterDeps & { pepper: string },
): Promise<ErasureFacts | undefined> {
  const now = deps.clock.now();
  if (!(await tombstoneUser(tx, erasure.childUserId, now.toISOString()))) return undefined;
  const facts = await removePersonalRows(tx, erasure.childUserId);
  await deleteChildCredentials(tx, erasure.childUserId);
  const releasedAt = new Date(now.getTime() + USERNAME_QUARANTINE_DAYS * 24 * 60 * 60 * 1000).toISOString();
  await reserveUsername(tx, reservedUsernameKey(deps.pepper, erasure.username), now.toISOString(), releasedAt);
  await resetUsernameFailures(tx, usernameThrottleKey(deps.pepper, erasure.username));
  await auditErasure(tx, { actorUserId: erasure.parentUserId, subjectUserId: erasure.childUserId, accountType: 'child', facts }, deps);
  return facts;
}

/**
 * DELETE /api/v1/me: an adult erases their own account. Refused while they have children that are
 * not erased (409 `children_not_erased`): a child's erasure is its parent's deliberate act, with
 * the withdrawal of consent it records, so it is never a side effect (README, "Export and
 * erasure"). A child's token gets 403: a child's account is erased by its parent.
 */
export async function eraseOwnAccount(caller: User, deps: ErasureDeps): Promise<{ ok: true } | { ok: false; problem: Problem }> {
  if (caller.accountType !== 'adult') {
    return { ok: false, problem: problem('forbidden', { detail: "A child's account is erased by its parent." }) };
  }
  const db = await deps.database.get();
  const outcome = await db.transaction(async (tx: TransactionExecutor) => {
    // Shared with the creation of a child of this parent: no child can appear after the count.
    await tx.lock(parentAccountLock(caller.id));
    const children = await countChildrenNotErased(tx, caller.id);
    if (children > 0) return { children };
    if (!(await tombstoneUser(tx, caller.id, deps.clock.now().toISOString()))) return { gone: true as const };
    const facts = await removePersonalRows(tx, caller.id);
    await auditErasure(tx, { actorUserId: caller.id, subjectUserId: caller.id, accountType: 'adult', facts }, deps);
    return { facts };
  });
  if ('children' in outcome) {
    return {
      ok: false,
      problem: problem('children_not_erased', {
        detail: `This account has ${outcome.children} child account(s) that are not erased: erase each with DELETE /api/v1/children/{id}?erase=true first.`,
      }),
    };
  }
  // A concurrent erasure of the same account got there first: its session is gone with it.
  if ('gone' in outcome) return { ok: false, problem: problem('unauthenticated', { detail: 'The account is erased.' }) };
  deps.logger.info({ erasedUserId: caller.id, accountType: 'adult', ...outcome.facts }, 'account erased');
  return { ok: true };
}

async function removePersonalRows(tx: SqlExecutor, userId: string): Promise<ErasureFacts> {
  const sessions = await deleteUserSessions(tx, userId);
  const devices = await deleteUserDevicesAndPreferences(tx, userId);
  return { sessions, devices };
}

async function auditErasure(
  tx: SqlExecutor,
  erasure: { actorUserId: string; subjectUserId: string; accountType: 'adult' | 'child'; facts: ErasureFacts },
  deps: AuditWriterDeps,
): Promise<void> {
  await writeAudit(
    tx,
    {
      eventType: 'account_erased',
      outcome: 'success',
      actorUserId: erasure.actorUserId,
      subjectUserId: erasure.subjectUserId,
      details: { accountType: erasure.accountType, sessions: erasure.facts.sessions, devices: erasure.facts.devices },
    },
    deps,
  );
}
