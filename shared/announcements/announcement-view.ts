import type { Announcement } from './announcement';
import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import { entityId, timestamp } from '../users/api-fields';
import { ANNOUNCEMENT_CHANNELS, ANNOUNCEMENT_STATUSES } from './announcement';

/** The client-facing shape: who reviewed or published it and the fan-out bookkeeping stay internal. */
export function toAnnouncementView(announcement: Announcement): AnnouncementView {
  return {
    id: announcement.id,
    status: announcement.status,
    title: announcement.title,
    body: announcement.body,
    channels: announcement.channels,
    authorId: announcement.authorId,
    createdAt: announcement.createdAt,
    updatedAt: announcement.updatedAt,
    submittedAt: announcement.submittedAt,
    reviewedAt: announcement.reviewedAt,
    publishedAt: announcement.publishedAt,
    rejectionReason: announcement.status === 'rejected' ? announcement.rejectionReason : null,
  };
}

/** An announcement as the API shows it: the OpenAPI document's `Announcement`, and the type below. */
export const announcementViewSchema = lazySchema(() =>
  z.strictObject({
    id: entityId(),
    status: z.enum(ANNOUNCEMENT_STATUSES),
    title: z.string(),
    body: z.string(),
    channels: z.array(z.enum(ANNOUNCEMENT_CHANNELS)),
    authorId: entityId(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    submittedAt: z.nullable(timestamp()),
    reviewedAt: z.nullable(timestamp()),
    publishedAt: z.nullable(timestamp()),
    // Only while the announcement is `rejected` (only its author and administrators can see it then).
    rejectionReason: z.nullable(z.string()),
  }),
);

/** An announcement as the API shows it (`announcementViewSchema`). */
export type AnnouncementView = z.output<ReturnType<typeof announcementViewSchema.schema>>;
