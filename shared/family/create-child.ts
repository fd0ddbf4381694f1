import type { DatabaseProvider } from '../db/lazy-database';
import type { Logger } from '../logging/logger';
import type { Clock } from '../ports/clock';
import type { Random } from '../ports/random';
import type { SecretHasher } from '../ports/secret-hasher';
import { checkUsername, USERNAME_RULE_DETAIL, USERNAME_RULE_FIELD_CODES } from '../children/child-username';
import { checkPassword, checkPin, SECRET_RULE_SENTENCES } from './credential-rules';
import { lockUsernameThrottle, resetUsernameFailures } from '../throttles/sign-in-throttle';
import { usernameThrottleKey } from '../throttles/throttle-keys';
import { writeAudit } from '../audit/write-audit';
import { UniqueViolationError } from '../db/database-errors';
import { problem, type Problem } from '../errors/problem';
import { summarizeFieldErrors } from '../errors/field-errors';
import type { Section, User } from '../users/user';
import { toChildAccountView, type ChildAccountView, type SecretKind } from '../children/child-account';
import { findChildById, insertChildAccount } from '../children/child-account-store';
import { isUsernameReserved } from '../users/account-erasure-store';
import { findUserById } from '../users/user-store';
import { parentAccountLock, reservedUsernameKey } from '../users/account-erasure';
import { recordConsent } from './record-consent';

export interface ChildSecretInput {
  kind: SecretKind;
  value: string;
}

/**
 * What managing child accounts takes: the ports it uses, the Argon2id hasher, the pepper (throttle and
 * reserved-username keys) and the terms version consents are recorded under.
 */
export interface ChildManagementDeps {
  database: DatabaseProvider;
  clock: Clock;
  random: Random;
  logger: Logger;
  hasher: SecretHasher;
  pepper: string;
  /** `CONSENT_TERMS_VERSION`. */
  consentTermsVersion: string;
}

/**
 * Checks a new PIN or password against the contract's rules. The problem's `errors` entry points
 * at the field and names the broken rule (`too_short`, `sequence`, `common`, …) so an app can say
 * what to change; neither it nor the detail ever holds the value.
 */
export function checkNewSecret(secret: ChildSecretInput, username: string): Problem | undefined {
  const check = secret.kind === 'pin' ? checkPin(secret.value) : checkPassword(secret.value, username);
  if (check.ok) return undefined;
  const detail = SECRET_RULE_SENTENCES[secret.kind];
  return problem('weak_secret', { detail, errors: [{ pointer: `/${secret.kind}`, code: check.rule, detail }] });
}

const usernameTaken = (): Problem => problem('username_taken', { detail: 'That username is already in use.' });

/**
 * POST /api/v1/children: a parent creates a child sub-account with a username, a PIN or password,
 * and the sections the child may use. The child row, its `child_created` audit row and the
 * parent's consent (`ChildConsents` row and `consent_given` audit row) are written in one
 * transaction: there is never a child without its consent record.
 */
export async function createChild(
  parent: User,
  input: { username: string; secret: ChildSecretInput; scopes: readonly Section[] },
  deps: ChildManagementDeps,
): Promise<{ ok: true; child: ChildAccountView } | { ok: false; problem: Problem }> {
  if (parent.accountType !== 'adult') return { ok: false, problem: problem('forbidden', { detail: 'Only adults manage child accounts.' }) };
  // The endpoint's schema runs the same check with the other fields'; this one holds for any caller.
  const username = checkUsername(input.username);
  if (!username.ok) {
    const errors = [{ pointer: '/username', code: USERNAME_RULE_FIELD_CODES[username.rule], detail: USERNAME_RULE_DETAIL }];
    return { ok: false, problem: problem('invalid_request', { detail: summarizeFieldErrors(errors), errors }) };
  }
  const weak = checkNewSecret(input.secret, username.username);
  if (weak) return { ok: false, problem: weak };

  const secretHash = await deps.hasher.hash(input.secret.value);
  const now = deps.clock.now().toISOString();
  const id = deps.random.uuid();
  const scopes = [...new Set(input.scopes)];
  const db = await deps.database.get();
  const usernameKey = usernameThrottleKey(deps.pepper, username.username);
  let consentId: string | undefined;
  let refused: Problem | undefined;
  try {
    refused = await db.transaction(async (tx): Promise<Problem | undefined> => {
      // Sign-ins settling under this name take the same lock: the reset below cannot race them.
      await lockUsernameThrottle(tx, usernameKey);
      // The parent's erasure takes this lock to count their children: none appears after the count.
      await tx.lock(parentAccountLock(parent.id));
      // An erased child's name stays taken through its quarantine, as a live child's does.
      if (await isUsernameReserved(tx, reservedUsernameKey(deps.pepper, username.username), now)) return usernameTaken();
      // Erased while this request ran (its session went with it): no child for a tombstone.
      if ((await findUserById(tx, parent.id))?.status !== 'active') return problem('unauthenticated', { detail: 'The account is no longer active.' });
      await insertChildAccount(tx, {
        user: {
          id,
          accountType: 'child',
          issuer: null,
          subject: null,
          parentId: parent.id,
          role: 'child',
          status: 'active',
          email: null,
          phone: null,
          createdAt: now,
          updatedAt: now,
        },
        username: username.username,
        secretHash,
        secretKind: input.secret.kind,
        scopes,
      });
      // Failures counted against this name before it existed must not lock the new account.
      await resetUsernameFailures(tx, usernameKey);
      await writeAudit(
        tx,
        {
          eventType: 'child_created',
          outcome: 'success',
          actorUserId: parent.id,
          subjectUserId: id,
          details: { scopes: scopes.join(','), signInMethod: input.secret.kind },
        },
        deps,
      );
      consentId = await recordConsent(tx, { parentUserId: parent.id, childUserId: id, sections: scopes, previousSections: [] }, deps);
      return undefined;
    });
  } catch (error) {
    if (error instanceof UniqueViolationError) {
      return { ok: false, problem: usernameTaken() };
    }
    throw error;
  }
  if (refused) return { ok: false, problem: refused };
  deps.logger.info({ childUserId: id, scopeCount: scopes.length, consentId }, 'child account created');
  const child = await findChildById(db, id);
  if (!child) throw new Error('child account vanished after its creation');
  return { ok: true, child: toChildAccountView(child) };
}
