import * as z from 'zod/mini';
import {
  ANNOUNCEMENT_CHANNELS,
  ANNOUNCEMENT_STATUSES,
  BODY_MAX_LENGTH,
  REJECTION_REASON_MAX_LENGTH,
  TITLE_MAX_LENGTH,
} from './announcement';

/**
 * Request bodies and parameters of the announcement endpoints (contract section 9). Unknown fields
 * are refused; texts are trimmed, then must hold 1 to the maximum number of characters.
 *
 * Written with `zod/mini` (functional checks): its schemas cost a fraction of zod's chained API to
 * build, and every cold start builds them.
 */

const title = z.string().check(z.trim(), z.minLength(1), z.maxLength(TITLE_MAX_LENGTH));
const body = z.string().check(z.trim(), z.minLength(1), z.maxLength(BODY_MAX_LENGTH));
const channels = z.array(z.enum(ANNOUNCEMENT_CHANNELS)).check(
  z.minLength(1),
  z.maxLength(ANNOUNCEMENT_CHANNELS.length),
  z.refine((list) => new Set(list).size === list.length, { message: 'channels must be unique' }),
);

export const createAnnouncementBody = z.strictObject({ title, body, channels });
export type CreateAnnouncementInput = z.infer<typeof createAnnouncementBody>;

export const updateAnnouncementBody = z
  .strictObject({ title: z.optional(title), body: z.optional(body), channels: z.optional(channels) })
  .check(z.refine((change) => Object.values(change).some((value) => value !== undefined), { message: 'nothing to change' }));
export type UpdateAnnouncementInput = z.infer<typeof updateAnnouncementBody>;

export const rejectAnnouncementBody = z.strictObject({
  reason: z.string().check(z.trim(), z.minLength(1), z.maxLength(REJECTION_REASON_MAX_LENGTH)),
});

/** `?status=` of the list: one of the statuses, or absent. */
export const statusFilter = z.optional(z.enum(ANNOUNCEMENT_STATUSES));
