import type { AccountType } from '../users/user';

/** Why a session ended. Expiry reasons match the audit vocabulary (`session_expired`). */
export type SessionEndReason = 'logout' | 'idle' | 'absolute' | 'role_changed' | 'account_disabled' | 'secret_changed';

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
}
