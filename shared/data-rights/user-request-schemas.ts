import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import { ADULT_ROLES, USER_STATUSES } from '../users/user';

/** `PATCH /api/v1/users/{id}/role`'s body: one of the adult roles, nothing else. */
export const roleChangeBody = lazySchema(() => z.strictObject({ role: z.enum(ADULT_ROLES) }));

/** `?status=` of the administrators' user list (default `pending_approval`). */
export const userStatusFilter = lazySchema(() => z.enum(USER_STATUSES));
