import type { Section, UserStatus } from '../users/user';
import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import { entityId, section, timestamp, userStatus } from '../users/api-fields';

export type SecretKind = 'pin' | 'password';

/** A child sub-account: its Users row joined with its credentials and the sections its parent opened. */
export interface ChildAccount {
  userId: string;
  parentId: string;
  /** Normalised (lower case); public, but never logged. */
  username: string;
  /** Argon2id PHC string; never logged or returned. */
  secretHash: string;
  secretKind: SecretKind;
  scopes: Section[];
  status: UserStatus;
  lockedAt: string | null;
  deletedAt: string | null;
  createdAt: string;
}

/** The client-facing shape: no hash, no internal timestamps. */
export function toChildAccountView(child: ChildAccount): ChildAccountView {
  return {
    id: child.userId,
    username: child.username,
    status: child.status,
    scopes: child.scopes,
    locked: child.lockedAt !== null,
    createdAt: child.createdAt,
  };
}

/** What a parent sees of a child (contract section 4): the OpenAPI document's schema, and `ChildAccountView`. */
export const childAccountViewSchema = lazySchema(() =>
  z.strictObject({
    id: entityId(),
    username: z.string(),
    status: userStatus(),
    scopes: z.array(section()),
    locked: z.boolean(),
    createdAt: timestamp(),
  }),
);

/** A child account as its parent sees it (`childAccountViewSchema`). */
export type ChildAccountView = z.output<ReturnType<typeof childAccountViewSchema.schema>>;
