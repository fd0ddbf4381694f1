import { createAnnouncementBody, statusFilter } from '../shared/announcement-workflow/announcement-request-schemas';
import { listVisibleAnnouncements } from '../shared/announcement-workflow/read-announcements';
import { createAnnouncement } from '../shared/announcement-workflow/write-announcement';
import { ANNOUNCEMENT_STATUSES } from '../shared/announcements/announcement';
import { toAnnouncementView } from '../shared/announcements/announcement-view';
import { announcementDepsOf } from '../shared/composition/announcement-services';
import { defineEndpoint } from '../shared/composition/app-functions';
import { problem } from '../shared/errors/problem';
import { encodeCursor, readPage } from '../shared/http/read-page';
import { ANNOUNCEMENT, ANNOUNCEMENT_PAGE, announcementExample, cursorParam, limitParam, PAGE } from '../shared/openapi/api-schemas';

/** The announcements: writing a draft, and the list the caller may see. */
const route = 'v1/announcements';

/** POST (author, admin): a new draft. */
export const createAnnouncementDraft = defineEndpoint({
  name: 'announcements-create',
  method: 'post',
  route,
  operationId: 'createAnnouncement',
  tag: 'announcements',
  summary: 'Write a draft',
  access: 'author or admin',
  body: {
    name: 'CreateAnnouncementRequest',
    schema: createAnnouncementBody,
    example: { title: 'Summer camp', body: 'Sign-up opens on Monday.', channels: ['push', 'email'] },
  },
  success: { status: 201, description: 'The draft.', body: ANNOUNCEMENT, example: announcementExample },
  problems: ['forbidden'],
  handler: async ({ caller, body }, services) => {
    const result = await createAnnouncement(caller.user, body, announcementDepsOf(services));
    if (!result.ok) return result.problem;
    return { status: 201, jsonBody: toAnnouncementView(result.announcement) };
  },
});

/** GET ?status=&limit=&cursor= (signed in): the announcements the caller may see, newest first. */
export const listAnnouncementsEndpoint = defineEndpoint({
  name: 'announcements-list',
  method: 'get',
  route,
  operationId: 'listAnnouncements',
  tag: 'announcements',
  summary: 'Announcements the caller may see',
  access: 'signed in',
  query: [{ name: 'status', description: 'Only this status.', schema: { type: 'string', enum: [...ANNOUNCEMENT_STATUSES] } }, limitParam(PAGE), cursorParam],
  success: { status: 200, description: 'One page.', body: ANNOUNCEMENT_PAGE, example: { items: [announcementExample], nextCursor: null } },
  problems: ['forbidden'],
  handler: async ({ caller, request }, services) => {
    const status = statusFilter.safeParse(request.query.get('status') ?? undefined);
    if (!status.success) return problem('invalid_request', { detail: `status: one of ${ANNOUNCEMENT_STATUSES.join(', ')}.` });
    const page = readPage(request);
    if (!page.ok) return page.problem;
    const result = await listVisibleAnnouncements(
      caller.user,
      { ...page.value, ...(status.data === undefined ? {} : { status: status.data }) },
      announcementDepsOf(services),
    );
    if (!result.ok) return result.problem;
    return {
      status: 200,
      jsonBody: { items: result.items.map(toAnnouncementView), nextCursor: result.next ? encodeCursor(result.next) : null },
    };
  },
});
