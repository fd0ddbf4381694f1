import type { LoginFailureReason } from '../audit/audit-event';
import { writeAudit } from '../audit/write-audit';
import { claimVerifiedSecret, findChildById, findChildByUsername, lockChild } from '../children/child-account-store';
import type { ChildAccount } from '../children/child-account';
import type { Database, SqlExecutor } from '../db/database';
import { problem, type Problem } from '../errors/problem';
import { identifyUser } from '../logging/log-context';
import { enqueueNotice, recordChildLockedNotice } from '../messages/account-notices';
import type { NoticeKind } from '../messages/notice-message';
import type { ClientLabel } from '../sessions/client-label';
import type { StartedSession } from '../sessions/start-session';
import type { User } from '../users/user';
import { findUserById } from '../users/user-store';
import type { ChildAuthDeps } from './auth-deps';
import { readSubmittedUsername } from '../children/child-username';
import { HashingOverloadedError, type HashWork } from '../ports/secret-hasher';
import { checkThrottle, lockThrottle, recordFailure, recordSuccess, type ThrottleRefusal } from '../throttles/sign-in-throttle';
import { clientAddressBucket, throttleKeys, type ThrottleKeys } from '../throttles/throttle-keys';
import { reportSignIn, startSignedInSession } from './signed-in-session';
import { UNKNOWN_CLIENT_ADDRESS } from '../throttles/unknown-client-address';

export type ChildSignInDeps = ChildAuthDeps;

export interface ChildSignInAttempt {
  username: string;
  /** The PIN or password, whichever was sent. */
  secret: string;
  /** The client's address as the HTTP layer determined it; null when unknown (no trusted proxy hop): one shared bucket. */
  clientAddress: string | null;
  /** The client's coarse label from its `User-Agent`, kept with the new session; `unknown` when absent. */
  clientLabel?: ClientLabel;
}

export type ChildSignIn = { ok: true; user: User; child: ChildAccount; started: StartedSession } | { ok: false; problem: Problem };

/** How the transaction after a proven secret ended. */
type Settlement =
  | { outcome: 'signed_in'; user: User; started: StartedSession }
  | { outcome: 'inactive'; reason: 'pending_approval' | 'disabled' }
  | { outcome: 'stale' }
  | { outcome: 'throttled'; refusal: ThrottleRefusal };

/** The id `failed` reads for a name that is no account: a row no child can have (ids are UUIDs). */
const NO_CHILD_ID = 'no-such-child';

/**
 * One answer for an unknown username, a wrong secret and a locked account: same status, same
 * body (apart from `traceId`), and the same work (exactly one Argon2 verification), so neither the
 * answer nor its timing tells an attacker which usernames exist or which accounts are locked.
 */
const invalidCredentials = (): ChildSignIn => ({
  ok: false,
  problem: problem('invalid_credentials', { detail: 'The username or the PIN/password is not correct.' }),
});

/**
 * POST /api/v1/auth/child-session: a child's username and PIN or password for a session,
 * throttled per username and per client address (contract section 6), audited either way.
 */
export async function signInChild(attempt: ChildSignInAttempt, deps: ChildSignInDeps): Promise<ChildSignIn> {
  // Every spelling counts under the name it reads as; only a valid name in its stored form is looked up.
  const username = readSubmittedUsername(attempt.username);
  const keys = throttleKeys(deps.pepper, username.identity, attempt.clientAddress ?? unknownAddress(deps));
  const db = await deps.database.get();
  const now = deps.clock.now();

  const gate = await checkThrottle(db, keys, now);
  if (!gate.allowed) return throttled(db, deps, gate, null);

  const child = username.lookup === null ? undefined : await findChildByUsername(db, username.lookup);
  // Deleted accounts are gone for sign-in purposes, but keep their username reserved. A spelling
  // that is not a valid name is an unknown username: same answer, same dummy verification.
  const account = child && child.deletedAt === null ? child : undefined;
  // Argon2's waiting line serves client addresses in turn, so one client's flood cannot make
  // another's sign-in wait behind all of it; a full line or a long wait answers 503, recording nothing.
  const work: HashWork = { client: attempt.clientAddress === null ? 'unknown' : clientAddressBucket(attempt.clientAddress) };
  let verified: { valid: boolean; needsRehash: boolean };
  try {
    if (account) {
      verified = await deps.hasher.verify(account.secretHash, attempt.secret, work);
    } else {
      await deps.hasher.verifyDummy(attempt.secret, work);
      verified = { valid: false, needsRehash: false };
    }
  } catch (error) {
    if (error instanceof HashingOverloadedError) return overloaded(deps, error);
    throw error;
  }

  if (!account || !verified.valid || account.lockedAt !== null) {
    const reason: LoginFailureReason = !account ? 'user_not_found' : account.lockedAt !== null ? 'locked' : 'bad_credentials';
    return failed(db, deps, keys, account, reason);
  }

  // The secret is proven: from here on the answers may differ. A rehash is computed before the
  // transaction: on SQLite a transaction holds the instance's only connection.
  const rehashed = verified.needsRehash ? await rehash(attempt.secret, work, deps) : undefined;
  const settled = await db.transaction(async (tx): Promise<Settlement> => {
    // The throttle's locks first, as a failure takes them; a parent's change of secret takes the
    // username's lock too, so it waits for this sign-in (and then revokes its session), and a
    // change that came first makes the claim below stale.
    const lock = await lockThrottle(tx, keys);
    if (!(await claimVerifiedSecret(tx, account.userId, account.secretHash, rehashed))) {
      await auditFailure(tx, deps, account.userId, 'bad_credentials');
      return { outcome: 'stale' };
    }
    const success = await recordSuccess(lock, deps.clock.now());
    if (!success.allowed) return { outcome: 'throttled', refusal: success };
    const user = await findUserById(tx, account.userId);
    if (!user) throw new Error('child account without a Users row');
    if (user.status !== 'active') {
      const reason = user.status === 'pending_approval' ? 'pending_approval' : 'disabled';
      await auditFailure(tx, deps, user.id, reason);
      return { outcome: 'inactive', reason };
    }
    const started = await startSignedInSession(tx, user, deps, {}, attempt.clientLabel);
    return { outcome: 'signed_in', user, started };
  });
  switch (settled.outcome) {
    case 'throttled':
      return throttled(db, deps, settled.refusal, account.userId);
    case 'stale':
      logFailure(deps, 'bad_credentials');
      return invalidCredentials();
    case 'inactive':
      // The secret proved who this is: the refusal's lines carry the child's id.
      identifyUser(account.userId);
      logFailure(deps, settled.reason);
      return {
        ok: false,
        problem:
          settled.reason === 'pending_approval'
            ? problem('account_pending_approval', { detail: 'This account is not approved yet.' })
            : problem('account_disabled', { detail: 'This account is disabled.' }),
      };
    case 'signed_in':
      break;
  }
  reportSignIn(deps, settled.user);
  return { ok: true, user: settled.user, child: account, started: settled.started };
}

async function failed(
  db: Database,
  deps: ChildSignInDeps,
  keys: ThrottleKeys,
  account: ChildAccount | undefined,
  reason: LoginFailureReason,
): Promise<ChildSignIn> {
  const outcome = await db.transaction(async (tx) => {
    const lock = await lockThrottle(tx, keys);
    // Read again under the username's lock, which the child's deletion and erasure take too: a
    // child deleted or erased since the first read is an unknown name now, and no audit row or
    // lock is written about it (the name's failure is counted as any unknown name's is). Read for
    // an unknown name too (an id nothing has), so the failure's work does not tell them apart.
    // After the failure is recorded: that takes the address's lock, which comes before any row.
    const record = await recordFailure(lock, deps.clock.now(), { random: deps.random });
    const current = await findChildById(tx, account?.userId ?? NO_CHILD_ID);
    const still = account && current && current.deletedAt === null ? account : undefined;
    if (!record.allowed) return { record, notice: undefined, userId: still?.userId ?? null };
    await auditFailure(tx, deps, still?.userId ?? null, account && !still ? 'user_not_found' : reason);
    if (!record.lockNow || !still || still.lockedAt !== null) return { record, notice: undefined, userId: still?.userId ?? null };
    // Only the statement that changes the row locks: two sign-ins that both counted a tenth
    // failure (on two instances) make one lock, one audit row and one notice to the parent.
    const lockedAt = deps.clock.now().toISOString();
    if (!(await lockChild(tx, still.userId, lockedAt))) return { record, notice: undefined, userId: still.userId };
    await writeAudit(
      tx,
      {
        eventType: 'authn_login_lock',
        outcome: 'success',
        actorUserId: null,
        subjectUserId: still.userId,
        details: { consecutiveFailures: record.consecutiveFailures },
      },
      deps,
    );
    // The parent's notice is an outbox row of this transaction: enqueued after the commit, and
    // owed (sent by the catch-up) if the queue cannot take it now.
    const notice = await recordChildLockedNotice(tx, { parentId: still.parentId, childId: still.userId, lockedAt }, deps);
    return { record, notice, userId: still.userId };
  });
  const { record } = outcome;
  if (!record.allowed) return throttled(db, deps, record, outcome.userId);
  if (outcome.notice) {
    deps.logger.warn(
      { accountType: 'child', consecutiveFailures: record.consecutiveFailures, noticeId: outcome.notice.id },
      'child account locked',
    );
    announceLock(outcome.notice, deps);
  }
  logFailure(deps, reason);
  return invalidCredentials();
}

/**
 * Starts the enqueue of the lock's notice for the parent and answers without waiting for it: an
 * attempt that locks must answer in the time of any other failure (a queue's round trip would tell
 * that the username exists). The enqueue is tracked by the shutdown, so the process does not exit
 * in the middle of it; one that never completes leaves the notice owed, and the catch-up sends it.
 * `enqueueNotice` does not throw; anything else that fails here is a warn line, never an
 * unhandled rejection.
 */
function announceLock(notice: { id: string; kind: NoticeKind }, deps: ChildSignInDeps): void {
  const send = (): Promise<boolean> => enqueueNotice(notice, deps);
  let started: Promise<boolean>;
  try {
    started = deps.shutdown ? deps.shutdown.track(send) : send();
  } catch (error) {
    started = Promise.reject(error);
  }
  started.catch((error: unknown) => {
    // The kind of error only: a queue's error quotes its URL.
    const errorType = error instanceof Error ? error.name : typeof error;
    deps.logger.warn({ noticeId: notice.id, kind: notice.kind, errorCode: 'notice_enqueue_failed', errorType }, 'account notice owed: the queue took no message');
  });
}

async function throttled(db: SqlExecutor, deps: ChildSignInDeps, refusal: ThrottleRefusal, userId: string | null): Promise<ChildSignIn> {
  await writeAudit(
    db,
    {
      eventType: 'authn_login_fail',
      outcome: 'failure',
      actorUserId: null,
      subjectUserId: userId,
      reason: 'throttled',
      details: { accountType: 'child', scope: refusal.scope, retryAfterSeconds: refusal.retryAfterSeconds },
    },
    deps,
  );
  deps.logger.info({ reason: 'throttled', accountType: 'child', scope: refusal.scope, retryAfterSeconds: refusal.retryAfterSeconds }, 'sign-in failed');
  deps.telemetry.trackEvent('auth.failure', { reason: 'throttled', accountType: 'child' });
  return {
    ok: false,
    problem: problem('too_many_attempts', {
      detail: 'Too many failed sign-ins; wait before trying again.',
      headers: { 'Retry-After': String(refusal.retryAfterSeconds) },
    }),
  };
}

/**
 * The new hash of a proven secret whose stored hash has old parameters; undefined when Argon2's
 * line has no room now: the sign-in goes ahead and the next one rehashes.
 */
async function rehash(secret: string, work: HashWork, deps: ChildSignInDeps): Promise<string | undefined> {
  try {
    return await deps.hasher.hash(secret, work);
  } catch (error) {
    if (error instanceof HashingOverloadedError) return undefined;
    throw error;
  }
}

/**
 * 503 with `Retry-After`: Argon2's waiting line refused the attempt before it was verified. Nothing
 * was counted or audited (the attempt proved nothing), so a client sent away here loses nothing.
 */
function overloaded(deps: ChildSignInDeps, error: HashingOverloadedError): ChildSignIn {
  deps.logger.warn({ accountType: 'child', reason: error.refusal.reason, retryAfterSeconds: error.retryAfterSeconds }, 'sign-in refused: hashing overloaded');
  deps.telemetry.trackEvent('auth.failure', { reason: 'overloaded', accountType: 'child' });
  return {
    ok: false,
    problem: problem('service_unavailable', {
      detail: 'Too many sign-ins are waiting; try again shortly.',
      headers: { 'Retry-After': String(error.retryAfterSeconds) },
    }),
  };
}

async function auditFailure(tx: SqlExecutor, deps: ChildSignInDeps, userId: string | null, reason: LoginFailureReason): Promise<void> {
  await writeAudit(
    tx,
    {
      eventType: 'authn_login_fail',
      outcome: 'failure',
      actorUserId: null,
      subjectUserId: userId,
      reason,
      details: { accountType: 'child' },
    },
    deps,
  );
}

function logFailure(deps: ChildSignInDeps, reason: LoginFailureReason): void {
  deps.logger.info({ reason, accountType: 'child' }, 'sign-in failed');
  deps.telemetry.trackEvent('auth.failure', { reason, accountType: 'child' });
}

/**
 * Attempts without a client address (no trusted proxy hop, or a request that bypassed the proxy)
 * share one address limit: failing closed, so hiding the address never escapes the contract's
 * 30 failures per 10 minutes, at the price that all such clients share those 30 (a deployment
 * without TRUST_PROXY_HOPS shows as 429s for everyone, and one warn line says why).
 */
function unknownAddress(deps: ChildSignInDeps): string {
  deps.onUnknownClientAddress?.();
  return UNKNOWN_CLIENT_ADDRESS;
}
