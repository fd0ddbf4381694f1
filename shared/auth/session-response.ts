import type { StartedSession } from '../sessions/start-session';
import type { Section, User } from '../users/user';
import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import { accountType, entityId, role, section, timestamp, userStatus } from '../users/api-fields';

/**
 * The 200 body of both sign-in endpoints (contract section 4). `expiresAt` is the absolute expiry;
 * a session unused for its idle lifetime ends earlier.
 */
export function sessionResponseBody(user: User, started: StartedSession, scopes?: readonly Section[]) {
  return {
    token: started.token,
    tokenType: 'Bearer' as const,
    expiresAt: started.session.absoluteExpiresAt,
    user: {
      id: user.id,
      role: user.role,
      status: user.status,
      accountType: user.accountType,
      ...(scopes ? { scopes: [...scopes] } : {}),
    },
  };
}

/** The shape of `sessionResponseBody`, for the OpenAPI document. */
export const sessionResponseSchema = lazySchema(() =>
  z.strictObject({
    token: z.string(),
    tokenType: z.literal('Bearer'),
    expiresAt: timestamp(),
    user: z.strictObject({
      id: entityId(),
      role: role(),
      status: userStatus(),
      accountType: accountType(),
      scopes: z.optional(z.array(section())),
    }),
  }),
);
