import { CHANNELS, type Channel } from '../ports/delivery';

/**
 * Announcements (contract section 9): written by authors and administrators, approved by an
 * administrator, then published and fanned out to recipients. Title and body are content, not
 * personal data, but they are still never logged, audited or sent as telemetry.
 */

/** Only `queued` is literal in the spec; the other spellings are ours (contract section 9). */
export const ANNOUNCEMENT_STATUSES = ['draft', 'queued', 'approved', 'rejected', 'published'] as const;
export type AnnouncementStatus = (typeof ANNOUNCEMENT_STATUSES)[number];

/** The delivery channels an announcement can ask for: the notification channels. */
export const ANNOUNCEMENT_CHANNELS = CHANNELS;
export type AnnouncementChannel = Channel;

export const TITLE_MAX_LENGTH = 200;
export const BODY_MAX_LENGTH = 10_000;
export const REJECTION_REASON_MAX_LENGTH = 500;

export interface Announcement {
  id: string;
  authorId: string;
  title: string;
  body: string;
  /** Unique, in the order the author gave them. */
  channels: AnnouncementChannel[];
  status: AnnouncementStatus;
  /** The administrator's reason, while the announcement is `rejected`; cleared when it is submitted again. */
  rejectionReason: string | null;
  createdAt: string;
  updatedAt: string;
  /** When it last entered `queued`. */
  submittedAt: string | null;
  /** When an administrator last approved or rejected it, and who. */
  reviewedAt: string | null;
  reviewedBy: string | null;
  publishedAt: string | null;
  publishedBy: string | null;
  /** When the publish step put the fan-out message on the queue; null while that is still owed. */
  fanoutEnqueuedAt: string | null;
}
