import { updateAnnouncementBody } from '../shared/announcement-workflow/announcement-request-schemas';
import { getAnnouncement } from '../shared/announcement-workflow/read-announcements';
import { updateAnnouncement } from '../shared/announcement-workflow/write-announcement';
import { toAnnouncementView } from '../shared/announcements/announcement-view';
import { announcementDepsOf } from '../shared/composition/announcement-services';
import { defineEndpoint } from '../shared/composition/app-functions';
import { resourceIdOf } from '../shared/http/resource-id';
import { ANNOUNCEMENT, announcementExample } from '../shared/openapi/api-schemas';

/** One announcement: reading it, and editing a draft or a rejected one. */
const route = 'v1/announcements/{id}';

/** GET (signed in): one announcement the caller may see (children: with the `announcements` scope). */
export const readAnnouncement = defineEndpoint({
  name: 'announcements-get',
  method: 'get',
  route,
  operationId: 'getAnnouncement',
  tag: 'announcements',
  summary: 'One announcement the caller may see',
  access: 'signed in',
  success: { status: 200, description: 'The announcement.', body: ANNOUNCEMENT, example: announcementExample },
  problems: ['forbidden', 'not_found'],
  handler: async ({ caller, request }, services) => {
    const path = resourceIdOf(request.params, 'an announcement');
    if (!path.ok) return path.problem;
    const result = await getAnnouncement(caller.user, path.id, announcementDepsOf(services));
    if (!result.ok) return result.problem;
    return { status: 200, jsonBody: toAnnouncementView(result.announcement) };
  },
});

/** PATCH (its author): title, body and/or channels of a draft or rejected announcement. */
export const editAnnouncement = defineEndpoint({
  name: 'announcements-update',
  method: 'patch',
  route,
  operationId: 'updateAnnouncement',
  tag: 'announcements',
  summary: 'Edit a draft or a rejected announcement',
  access: 'author or admin',
  body: { name: 'UpdateAnnouncementRequest', schema: updateAnnouncementBody, example: { title: 'Summer camp 2025' } },
  success: { status: 200, description: 'The announcement.', body: ANNOUNCEMENT, example: announcementExample },
  problems: ['forbidden', 'not_found', 'invalid_transition'],
  handler: async ({ caller, body, request }, services) => {
    const path = resourceIdOf(request.params, 'an announcement');
    if (!path.ok) return path.problem;
    const result = await updateAnnouncement(caller.user, path.id, body, announcementDepsOf(services));
    if (!result.ok) return result.problem;
    return { status: 200, jsonBody: toAnnouncementView(result.announcement) };
  },
});
