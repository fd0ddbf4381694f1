import type { Announcement, AnnouncementChannel, AnnouncementStatus } from './announcement';
import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import { entityId, timestamp } from '../users/api-fields';
import { ANNOUNCEMENT_CHANNELS, ANNOUNCEMENT_STATUSES } from './announcement';

/** An announcement as the API shows it. */
export interface AnnouncementView {
  id: string;
  status: AnnouncementStatus;
  title: string;
  body: string;
  channels: AnnouncementChannel[];
  authorId: string;
  createdAt: string;
  updatedAt: string;
  submittedAt: string | null;
  reviewedAt: string | null;
  publishedAt: string | null;
  /** Only while the announcement is `rejected` (only its author and administrators can see it then). */
  rejectionReason: string | null;
}

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

/** The shape of `AnnouncementView`, for the OpenAPI document. */
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
    rejectionReason: z.nullable(z.string()),
  }),
);
