/** Platform users (the spec's "the service" resource): one row per adult or child account. */

export const ACCOUNT_TYPES = ['adult', 'child'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/** Roles an administrator can give an adult; children always have the role `child`. */
export const ADULT_ROLES = ['member', 'author', 'admin'] as const;
export type AdultRole = (typeof ADULT_ROLES)[number];
export type Role = AdultRole | 'child';

/** `erased`: a tombstone, the account's personal data removed (`account-erasure.ts`); never signs in again. */
export const USER_STATUSES = ['active', 'pending_approval', 'disabled', 'erased'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

/** The sections a parent can open to a child (contract section 4, the scope catalogue). */
export const SECTIONS = ['announcements', 'events', 'groups', 'media'] as const;
export type Section = (typeof SECTIONS)[number];

export interface User {
  id: string;
  accountType: AccountType;
  /** Identity-provider issuer and subject: adults only. */
  issuer: string | null;
  subject: string | null;
  /** The parent's user id: children only. */
  parentId: string | null;
  role: Role;
  status: UserStatus;
  /** Verified contact claims of adults, kept for notifications; never logged. */
  email: string | null;
  phone: string | null;
  createdAt: string;
  updatedAt: string;
}
