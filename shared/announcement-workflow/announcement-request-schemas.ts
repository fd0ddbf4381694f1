import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import {
  ANNOUNCEMENT_CHANNELS,
  ANNOUNCEMENT_STATUSES,
  BODY_MAX_LENGTH,
  REJECTION_REASON_MAX_LENGTH,
  TITLE_MAX_LENGTH,
} from '../announcements/announcement';

/**
 * Request bodies and parameters of the announcement endpoints (contract section 9). Unknown fields
 * are refused; texts are trimmed, then must hold 1 to the maximum number of characters.
 *
 * Written with `zod/mini` and built on first use (`lazySchema`): neither costs a cold start.
 */

const title = () => z.string().check(z.trim(), z.minLength(1), z.maxLength(TITLE_MAX_LENGTH));
const body = () => z.string().check(z.trim(), z.minLength(1), z.maxLength(BODY_MAX_LENGTH));
const channels = () =>
  z.array(z.enum(ANNOUNCEMENT_CHANNELS)).check(
    z.minLength(1),
    z.maxLength(ANNOUNCEMENT_CHANNELS.length),
    z.refine((list) => new Set(list).size === list.length, { message: 'channels must be unique' }),
  );

export const createAnnouncementBody = lazySchema(() => z.strictObject({ title: title(), body: body(), channels: channels() }));
export type CreateAnnouncementInput = z.infer<ReturnType<typeof createAnnouncementBody.schema>>;

export const updateAnnouncementBody = lazySchema(() =>
  z
    .strictObject({ title: z.optional(title()), body: z.optional(body()), channels: z.optional(channels()) })
    .check(z.refine((change) => Object.values(change).some((value) => value !== undefined), { message: 'nothing to change' })),
);
export type UpdateAnnouncementInput = z.infer<ReturnType<typeof updateAnnouncementBody.schema>>;

export const rejectAnnouncementBody = lazySchema(() =>
  z.strictObject({ reason: z.string().check(z.trim(), z.minLength(1), z.maxLength(REJECTION_REASON_MAX_LENGTH)) }),
);

/** `?status=` of the list: one of the statuses, or absent. */
export const statusFilter = lazySchema(() => z.optional(z.enum(ANNOUNCEMENT_STATUSES)));
