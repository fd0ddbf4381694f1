import type { User } from './user';
import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import { accountType, entityId, role, timestamp, userStatus } from './api-fields';

/**
 * A user as the API shows it to the user themselves (`GET /api/v1/me`) and to administrators
 * deciding on an approval or a role. Only they see the contact details.
 */
export function toUserView(user: User) {
  return {
    id: user.id,
    role: user.role,
    status: user.status,
    accountType: user.accountType,
    createdAt: user.createdAt,
    ...(user.email ? { email: user.email } : {}),
    ...(user.phone ? { phone: user.phone } : {}),
  };
}

/** The fields of `toUserView`, for the OpenAPI document. */
export const userViewFields = () => ({
  id: entityId(),
  role: role(),
  status: userStatus(),
  accountType: accountType(),
  createdAt: timestamp(),
  email: z.optional(z.string()),
  phone: z.optional(z.string()),
});

/** The shape of `toUserView`. */
export const userViewSchema = lazySchema(() => z.strictObject(userViewFields()));
