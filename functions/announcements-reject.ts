import { rejectAnnouncementBody } from '../shared/announcement-workflow/announcement-request-schemas';
import { rejectAnnouncement } from '../shared/announcement-workflow/take-workflow-step';
import { answerWorkflowStep } from '../shared/composition/announcement-services';
import { defineEndpoint } from '../shared/composition/app-functions';
import { ANNOUNCEMENT } from '../shared/openapi/api-schemas';

/** POST /api/v1/announcements/{id}/reject { reason } (admin): queued → rejected; the reason is stored, never logged. */
export const rejectStep = defineEndpoint({
  name: 'announcements-reject',
  method: 'post',
  route: 'v1/announcements/{id}/reject',
  operationId: 'rejectAnnouncement',
  tag: 'announcements',
  summary: 'Reject a submitted announcement, with a reason for its author',
  access: 'admin',
  body: { name: 'RejectAnnouncementRequest', schema: rejectAnnouncementBody, example: { reason: 'Please add the date.' } },
  success: { status: 200, description: 'The rejected announcement.', body: ANNOUNCEMENT },
  problems: ['forbidden', 'not_found', 'invalid_transition'],
  handler: ({ caller, body, request }, services) =>
    answerWorkflowStep(request, services, (id, deps) => rejectAnnouncement(caller.user, id, body.reason, deps)),
});
