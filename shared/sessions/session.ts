import type { AccountType } from '../users/user';
import type { ClientLabel } from './client-label';

/**
 * Why a session ended. Expiry and revocation reasons match the audit vocabulary (`session_expired`,
 * `authn_token_revoked`).
 */
export type SessionEndReason =
  | 'logout'
  | 'idle'
  | 'absolute'
  | 'role_changed'
  | 'account_disabled'
  | 'secret_changed'
  | 'user_revoked'
  | 'user_revoked_all'
  | 'parent_revoked';

export interface Session {
  id: string;
  userId: string;
  /** SHA-256 of the token's secret half, hex. */
  secretHash: string;
  accountType: AccountType;
  createdAt: string;
  lastUsedAt: string;
  idleExpiresAt: string;
  absoluteExpiresAt: string;
  endedAt: string | null;
  endReason: SessionEndReason | null;
  /** What kind of client signed in ("iOS app"), from its `User-Agent`; never the header itself. */
  clientLabel: ClientLabel;
}

/** A session as the session list reads it: everything but the secret hash and the end, which a live one lacks. */
export type LiveSession = Omit<Session, 'secretHash' | 'endedAt' | 'endReason'>;
