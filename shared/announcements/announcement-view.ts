import type { Announcement, AnnouncementChannel, AnnouncementStatus } from './announcement';

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
