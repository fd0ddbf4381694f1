import { writeAudit } from '../audit/write-audit';
import type { LoginFailureReason } from '../audit/audit-event';
import type { SqlExecutor } from '../db/database';
import { UniqueViolationError } from '../db/database-errors';
import { problem, type Problem } from '../errors/problem';
import { identifyUser } from '../logging/log-context';
import type { StartedSession } from '../sessions/start-session';
import type { User } from '../users/user';
import { findAdultByIdentity, insertUser, updateAdultContact } from '../users/user-store';
import type { AuthDeps } from './auth-deps';
import type { IdTokenClaims, IdTokenVerifier } from './id-token';
import { reportSignIn, startSignedInSession } from './signed-in-session';

export interface AdultSignInDeps extends AuthDeps {
  verifier: IdTokenVerifier;
  newUserStatus: 'active' | 'pending_approval';
  /** Identity-provider subjects made `admin` and `active` on their first sign-in. */
  bootstrapAdminSubjects: readonly string[];
}

export type AdultSignIn = { ok: true; user: User; started: StartedSession; created: boolean } | { ok: false; problem: Problem };

/**
 * POST /api/v1/auth/session: exchanges an identity-provider ID token for a platform session,
 * creating the Users row on the first sign-in. Every outcome is audited and sent as an
 * `auth.success` / `auth.failure` event; the token itself goes nowhere but the verifier.
 */
export async function signInAdult(idToken: string, deps: AdultSignInDeps): Promise<AdultSignIn> {
  const verification = await deps.verifier.verify(idToken);
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
    const db = await deps.database.get();
    const failure = { reason: 'invalid_token', userId: null, detail: verification.reason } as const;
    await auditFailure(db, deps, failure);
    reportFailure(deps, failure);
    return { ok: false, problem: problem('invalid_token', { detail: 'The identity token is not valid.' }) };
  }

  const { claims } = verification;
  const db = await deps.database.get();
  const existing = await findAdultByIdentity(db, claims.issuer, claims.subject);
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const user = existing ?? newAdult(claims, nowIso, deps);

  if (user.status !== 'active') {
    const reason: LoginFailureReason = user.status === 'pending_approval' ? 'pending_approval' : 'disabled';
    // The token proved who this is: the refusal's lines carry the user's id.
    identifyUser(user.id);
    const failure = { reason, userId: user.id, created: !existing };
    await db.transaction(async (tx) => {
      if (!existing) await insertUser(tx, user);
      await auditFailure(tx, deps, failure);
    });
    reportFailure(deps, failure);
    return {
      ok: false,
      problem:
        reason === 'pending_approval'
          ? problem('account_pending_approval', { detail: 'An administrator has not approved this account yet.' })
          : problem('account_disabled', { detail: 'This account is disabled.' }),
    };
  }

  try {
    const started = await db.transaction(async (tx) => {
      if (!existing) {
        await insertUser(tx, user);
      } else if ((claims.email ?? null) !== user.email || (claims.phone ?? null) !== user.phone) {
        await updateAdultContact(tx, user.id, { email: claims.email ?? null, phone: claims.phone ?? null }, nowIso);
      }
      return startSignedInSession(tx, user, deps, { created: !existing, role: user.role });
    });
    reportSignIn(deps, user, { created: !existing, role: user.role });
    return { ok: true, user, started, created: !existing };
  } catch (error) {
    // Two first sign-ins of one identity raced; the other one created the row. Sign in again as the existing user.
    if (!existing && error instanceof UniqueViolationError) return signInAdult(idToken, deps);
    throw error;
  }
}

function newAdult(claims: IdTokenClaims, now: string, deps: AdultSignInDeps): User {
  const bootstrapAdmin = deps.bootstrapAdminSubjects.includes(claims.subject);
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

interface AdultSignInFailure {
  reason: LoginFailureReason;
  userId: string | null;
  detail?: string;
  created?: boolean;
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

/** The failure's log line and event, once its audit row is committed. */
function reportFailure(deps: AdultSignInDeps, failure: AdultSignInFailure): void {
  // Logged without the user id on the line's own fields: the request is not authenticated.
  deps.logger.info({ reason: failure.reason, accountType: 'adult', ...(failure.detail ? { check: failure.detail } : {}) }, 'sign-in failed');
  deps.telemetry.trackEvent('auth.failure', { reason: failure.reason, accountType: 'adult' });
}
