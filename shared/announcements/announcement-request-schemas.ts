import * as z from 'zod';
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
 * Each schema is built on its first use (`z.lazy`), not at import: building zod schemas is most of
 * what the app's cold start would otherwise spend on validation, for endpoints a start may never serve.
 */

const title = () => z.string().trim().min(1).max(TITLE_MAX_LENGTH);
const body = () => z.string().trim().min(1).max(BODY_MAX_LENGTH);
const channels = () =>
  z
    .array(z.enum(ANNOUNCEMENT_CHANNELS))
    .min(1)
    .max(ANNOUNCEMENT_CHANNELS.length)
    .refine((list) => new Set(list).size === list.length, { message: 'channels must be unique' });

export const createAnnouncementBody = z.lazy(() => z.strictObject({ title: title(), body: body(), channels: channels() }));
export type CreateAnnouncementInput = z.infer<typeof createAnnouncementBody>;

export const updateAnnouncementBody = z.lazy(() =>
  z
    .strictObject({ title: title().optional(), body: body().optional(), channels: channels().optional() })
    .refine((change) => Object.values(change).some((value) => value !== undefined), { message: 'nothing to change' }),
);
export type UpdateAnnouncementInput = z.infer<typeof updateAnnouncementBody>;

export const rejectAnnouncementBody = z.lazy(() => z.strictObject({ reason: z.string().trim().min(1).max(REJECTION_REASON_MAX_LENGTH) }));

/** `?status=` of the list: one of the statuses, or absent. */
export const statusFilter = z.lazy(() => z.enum(ANNOUNCEMENT_STATUSES).optional());
