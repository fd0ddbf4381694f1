import { writeAudit } from '../audit/write-audit';
import type { LoginFailureReason } from '../audit/audit-event';
import type { SqlExecutor } from '../db/database';
import { UniqueViolationError } from '../db/database-errors';
import { problem, type Problem } from '../errors/problem';
import { identifyUser } from '../logging/log-context';
import type { ClientLabel } from '../sessions/client-label';
import type { StartedSession } from '../sessions/start-session';
import type { User } from '../users/user';
import { parentAccountLock } from '../users/account-erasure';
import { findAdultByIdentity, findUserById, insertUser, refreshAdultContact } from '../users/user-store';
import { isBootstrapAdmin, type BootstrapAdmin } from '../settings/bootstrap-admins';
import { checkAdultThrottle, recordAdultFailure, type AdultSignInThrottle, type AdultThrottleRefusal } from '../throttles/adult-sign-in-throttle';
import type { AuthDeps } from './auth-deps';
import type { IdTokenClaims, IdTokenVerifier } from './id-token';
import { reportSignIn, startSignedInSession } from './signed-in-session';

export interface AdultSignInDeps extends AuthDeps {
  verifier: IdTokenVerifier;
  newUserStatus: 'active' | 'pending_approval';
  /** Identities (issuer and subject, never the subject alone) made `admin` and `active` on their first sign-in. */
  bootstrapAdmins: readonly BootstrapAdmin[];
  /** The limits of failed sign-ins (per client address, and for everyone per minute). */
  throttle: AdultSignInThrottle;
}

export type AdultSignIn = { ok: true; user: User; started: StartedSession; created: boolean } | { ok: false; problem: Problem };

/** What the HTTP layer read about the signing-in client besides the token. */
export interface AdultSignInClient {
  /** Kept with the new session (`GET /api/v1/me/sessions`); `unknown` when absent. */
  clientLabel?: ClientLabel;
  /** The client's address as the HTTP layer determined it; null or absent when unknown (no trusted proxy hop). */
  clientAddress?: string | null;
  /** The `nonce` sent with the token, which the token's `nonce` claim must match (see `IdTokenCheck`). */
  nonce?: string | undefined;
}

/**
 * POST /api/v1/auth/session: exchanges an identity-provider ID token for a platform session,
 * creating the Users row on the first sign-in. Every outcome is audited and sent as an
 * `auth.success` / `auth.failure` event; the token itself goes nowhere but the verifier.
 * Failures are limited (`adult-sign-in-throttle.ts`): past a limit they get 429 and no audit row.
 */
export async function signInAdult(idToken: string, deps: AdultSignInDeps, client: AdultSignInClient = {}): Promise<AdultSignIn> {
  const verification = await deps.verifier.verify(idToken, { nonce: client.nonce });
  if (!verification.ok) {
    if (verification.failure === 'idp_unavailable') {
      // The provider failure itself was logged at error level by the verifier's onProviderFailure.
      return {
        ok: false,
        problem: problem('idp_unavailable', {
          detail: 'The identity provider cannot be reached; try again shortly.',
          headers: { 'Retry-After': String(verification.retryAfterSeconds) },
          cause: verification.cause,
        }),
      };
    }
    return failed(deps, client, { reason: 'invalid_token', userId: null, detail: verification.reason });
  }

  return settleSignIn(verification.claims, deps, client, 1);
}

/**
 * How many times a verified sign-in reads the account again after a concurrent change made its
 * first read stale (an erasure, a status or role change, a racing first sign-in); beyond that the
 * account keeps changing under it, and the client is told to try again (503).
 */
const MAX_SETTLE_ATTEMPTS = 3;

/** The sign-in of a verified identity: the account read, then the session started under its lock. */
async function settleSignIn(claims: IdTokenClaims, deps: AdultSignInDeps, client: AdultSignInClient, attempt: number): Promise<AdultSignIn> {
  if (attempt > MAX_SETTLE_ATTEMPTS) {
    return { ok: false, problem: problem('service_unavailable', { detail: 'The account changed during the sign-in; try again.' }) };
  }
  const db = await deps.database.get();
  const existing = await findAdultByIdentity(db, claims.issuer, claims.subject);
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const found = existing ?? newAdult(claims, nowIso, deps);

  try {
    if (found.status !== 'active') {
      const reason: LoginFailureReason = found.status === 'pending_approval' ? 'pending_approval' : 'disabled';
      // The token proved who this is: the refusal's lines carry the user's id.
      identifyUser(found.id);
      return await failed(deps, client, { reason, userId: found.id, created: !existing }, existing ? undefined : found);
    }

    const signedIn = await db.transaction(async (tx) => {
      if (!existing) {
        await insertUser(tx, found);
        return { user: found, started: await startSignedInSession(tx, found, deps, { created: true, role: found.role }, client.clientLabel) };
      }
      // Under the account's lock, which its erasure takes too, the account is read again: an
      // erasure that committed after the first read left a tombstone (no identity any more), a
      // status or role change a different account; then the sign-in starts over from the identity
      // (after an erasure, as a new account, as any sign-in after it would). Nothing is written to
      // a tombstone: no contact data, no session.
      await tx.lock(parentAccountLock(existing.id));
      const current = await findUserById(tx, existing.id);
      if (current?.status !== 'active' || current.issuer !== claims.issuer || current.subject !== claims.subject) return undefined;
      const contact = contactChange(current, claims);
      if (contact && !(await refreshAdultContact(tx, current.id, contact, nowIso))) return undefined;
      const user = contact ? { ...current, ...contact, updatedAt: nowIso } : current;
      return { user, started: await startSignedInSession(tx, user, deps, { created: false, role: user.role }, client.clientLabel) };
    });
    if (!signedIn) return settleSignIn(claims, deps, client, attempt + 1);
    const { user, started } = signedIn;
    reportSignIn(deps, user, { created: !existing, role: user.role });
    return { ok: true, user, started, created: !existing };
  } catch (error) {
    // Two first sign-ins of one identity raced; the other one created the row. Sign in again as the existing user.
    if (!existing && error instanceof UniqueViolationError) return settleSignIn(claims, deps, client, attempt + 1);
    throw error;
  }
}

function newAdult(claims: IdTokenClaims, now: string, deps: AdultSignInDeps): User {
  const bootstrapAdmin = isBootstrapAdmin(deps.bootstrapAdmins, claims.issuer, claims.subject);
  return {
    id: deps.random.uuid(),
    accountType: 'adult',
    issuer: claims.issuer,
    subject: claims.subject,
    parentId: null,
    role: bootstrapAdmin ? 'admin' : 'member',
    status: bootstrapAdmin ? 'active' : deps.newUserStatus,
    email: claims.email ?? null,
    phone: claims.phone ?? null,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The contact values a sign-in changes: only those the provider vouches for (the verifier leaves
 * out a missing, unverified or malformed claim) and that differ from the stored ones. A token
 * without an `email` says nothing about the address, so it keeps the stored one: a provider that
 * leaves the claim out of some tokens (a scope not granted, an optional claim not configured)
 * must not drop the user out of e-mail notifications. Both sides are canonical, so a change of
 * spelling alone is no change.
 */
function contactChange(user: User, claims: IdTokenClaims): { email?: string; phone?: string } | undefined {
  const change: { email?: string; phone?: string } = {};
  if (claims.email !== undefined && claims.email !== user.email) change.email = claims.email;
  if (claims.phone !== undefined && claims.phone !== user.phone) change.phone = claims.phone;
  return change.email === undefined && change.phone === undefined ? undefined : change;
}

interface AdultSignInFailure {
  reason: LoginFailureReason;
  userId: string | null;
  detail?: string;
  created?: boolean;
}

/**
 * A failed sign-in: 401/403 with its audit row, unless a limit refuses it (429, no audit row).
 * @param newUser a pending or disabled adult's first sign-in creates the Users row with the failure.
 */
async function failed(deps: AdultSignInDeps, client: AdultSignInClient, failure: AdultSignInFailure, newUser?: User): Promise<AdultSignIn> {
  const { throttle } = deps;
  const addressKey = throttle.addressKey(client.clientAddress ?? null);
  const db = await deps.database.get();
  const gate = await checkAdultThrottle(db, addressKey, throttle.limits, deps.clock.now());
  if (!gate.allowed) return throttled(deps, gate);
  const record = await db.transaction(async (tx) => {
    const recorded = await recordAdultFailure(tx, addressKey, throttle.limits, deps.clock.now(), deps.random);
    if (!recorded.allowed) return recorded;
    if (newUser) await insertUser(tx, newUser);
    await auditFailure(tx, deps, failure);
    for (const closed of recorded.closes) await auditThrottleClosed(tx, deps, closed);
    return recorded;
  });
  if (!record.allowed) return throttled(deps, record);
  reportFailure(deps, failure);
  for (const closed of record.closes) {
    // Once per closing, not per refusal: the line on-call reads when sign-ins start getting 429.
    deps.logger[closed.scope === 'global' ? 'warn' : 'info'](
      { accountType: 'adult', scope: closed.scope, retryAfterSeconds: closed.retryAfterSeconds },
      'adult sign-in limit reached',
    );
  }
  switch (failure.reason) {
    case 'pending_approval':
      return { ok: false, problem: problem('account_pending_approval', { detail: 'An administrator has not approved this account yet.' }) };
    case 'disabled':
      return { ok: false, problem: problem('account_disabled', { detail: 'This account is disabled.' }) };
    default:
      return { ok: false, problem: problem('invalid_token', { detail: 'The identity token is not valid.' }) };
  }
}

async function auditFailure(executor: SqlExecutor, deps: AdultSignInDeps, failure: AdultSignInFailure): Promise<void> {
  await writeAudit(
    executor,
    {
      eventType: 'authn_login_fail',
      outcome: 'failure',
      actorUserId: failure.userId,
      subjectUserId: failure.userId,
      reason: failure.reason,
      details: {
        accountType: 'adult',
        ...(failure.detail ? { check: failure.detail } : {}),
        ...(failure.created ? { created: true } : {}),
      },
    },
    deps,
  );
}

/**
 * The one `throttled` row of a limit's closing, written with the failure that filled it: it
 * stands for every refusal until `retryAfterSeconds` have passed, which write none (the child's
 * throttle writes one per refusal; here that would be the flood the global limit is there to stop).
 */
async function auditThrottleClosed(executor: SqlExecutor, deps: AdultSignInDeps, closed: AdultThrottleRefusal): Promise<void> {
  const { limits } = deps.throttle;
  const global = closed.scope === 'global';
  await writeAudit(
    executor,
    {
      eventType: 'authn_login_fail',
      outcome: 'failure',
      actorUserId: null,
      subjectUserId: null,
      reason: 'throttled',
      details: {
        accountType: 'adult',
        scope: closed.scope,
        retryAfterSeconds: closed.retryAfterSeconds,
        maxFailures: global ? limits.globalMaxFailuresPerMinute : limits.addressMaxFailures,
        windowSeconds: global ? 60 : limits.addressWindowMs / 1000,
      },
    },
    deps,
  );
}

/** A failure refused by a limit: 429 with `Retry-After`, a log line and an event, no audit row. */
function throttled(deps: AdultSignInDeps, refusal: AdultThrottleRefusal): AdultSignIn {
  deps.logger.info(
    {
      reason: 'throttled',
      accountType: 'adult',
      scope: refusal.scope,
      retryAfterSeconds: refusal.retryAfterSeconds,
      ...(refusal.lockBusy ? { lockBusy: true } : {}),
    },
    'sign-in failed',
  );
  deps.telemetry.trackEvent('auth.failure', { reason: 'throttled', accountType: 'adult' });
  return {
    ok: false,
    problem: problem('too_many_attempts', {
      detail: 'Too many failed sign-ins; wait before trying again.',
      headers: { 'Retry-After': String(refusal.retryAfterSeconds) },
    }),
  };
}

/** The failure's log line and event, once its audit row is committed. */
function reportFailure(deps: AdultSignInDeps, failure: AdultSignInFailure): void {
  // Logged without the user id on the line's own fields: the request is not authenticated.
  deps.logger.info({ reason: failure.reason, accountType: 'adult', ...(failure.detail ? { check: failure.detail } : {}) }, 'sign-in failed');
  deps.telemetry.trackEvent('auth.failure', { reason: failure.reason, accountType: 'adult' });
}
