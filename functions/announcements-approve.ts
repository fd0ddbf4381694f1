import { approveAnnouncement } from '../shared/announcement-workflow/take-workflow-step';
import { answerWorkflowStep } from '../shared/composition/announcement-services';
import { defineEndpoint } from '../shared/composition/app-functions';
import { ANNOUNCEMENT, announcementExample } from '../shared/openapi/api-schemas';

/** POST /api/v1/announcements/{id}/approve (admin): queued → approved. */
export const approveStep = defineEndpoint({
  name: 'announcements-approve',
  method: 'post',
  route: 'v1/announcements/{id}/approve',
  operationId: 'approveAnnouncement',
  tag: 'announcements',
  summary: 'Approve a submitted announcement',
  access: 'admin',
  success: { status: 200, description: 'The announcement after the step.', body: ANNOUNCEMENT, example: announcementExample },
  problems: ['forbidden', 'not_found', 'invalid_transition'],
  handler: ({ caller, request }, services) => answerWorkflowStep(request, services, (id, deps) => approveAnnouncement(caller.user, id, deps)),
});
