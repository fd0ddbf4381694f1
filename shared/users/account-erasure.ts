import { createHmac } from 'node:crypto';
import { resetUsernameFailures } from '../throttles/sign-in-throttle';
import { usernameThrottleKey } from '../throttles/throttle-keys';
import { writeAudit, type AuditWriterDeps } from '../audit/write-audit';
import type { SqlExecutor, TransactionExecutor } from '../db/database';
import { userSettingsLock } from './push-tokens';
import {
  deleteChildCredentials,
  deleteUnpublishedAnnouncements,
  deleteUserDevicesAndPreferences,
  deleteUserSessions,
  reserveUsername,
  tombstoneUser,
} from './account-erasure-store';

/**
 * Erasure of an account: in one transaction, everything that identifies the
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

/** An adult's rows: as anyone's, and the announcements they wrote that never got published. */
export async function removeAdultRows(tx: SqlExecutor, userId: string): Promise<ErasureFacts> {
  const facts = await removePersonalRows(tx, userId);
  return { ...facts, announcements: await deleteUnpublishedAnnouncements(tx, userId) };
}

async function removePersonalRows(tx: SqlExecutor, userId: string): Promise<ErasureFacts> {
  const sessions = await deleteUserSessions(tx, userId);
  const devices = await deleteUserDevicesAndPreferences(tx, userId);
  return { sessions, devices };
}

/** The erasure's one `account_erased` audit row: ids, the account type and counts only. */
export async function auditErasure(
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
