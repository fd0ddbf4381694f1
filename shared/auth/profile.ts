import type { Session } from '../sessions/session';
import type { Section, User } from '../users/user';
import { toUserView, userViewFields } from '../users/user-view';
import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import { entityId, section, timestamp } from '../users/api-fields';

/** What `GET /api/v1/me` answers from: the caller exactly as the session check loaded it. */
export interface ProfileSource {
  user: User;
  session: Session;
  /** A child's sections (undefined for an adult). */
  scopes?: readonly Section[] | undefined;
}

/**
 * GET /api/v1/me's body (contract section 4): the caller's profile, role and current session.
 * Built from what the session check already read, without a database: `/me` costs the one read
 * of authentication and nothing more.
 */
export function profileOf({ user, session, scopes }: ProfileSource) {
  return {
    ...toUserView(user),
    ...(user.parentId ? { parentId: user.parentId } : {}),
    ...(user.accountType === 'child' && scopes ? { scopes: [...scopes] } : {}),
    session: { createdAt: session.createdAt, expiresAt: session.absoluteExpiresAt },
  };
}

/** The shape of `profileOf`, for the OpenAPI document. */
export const profileSchema = lazySchema(() =>
  z.strictObject({
    ...userViewFields(),
    parentId: z.optional(entityId()),
    scopes: z.optional(z.array(section())),
    session: z.strictObject({ createdAt: timestamp(), expiresAt: timestamp() }),
  }),
);
