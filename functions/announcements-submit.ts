import { submitAnnouncement } from '../shared/announcement-workflow/take-workflow-step';
import { answerWorkflowStep } from '../shared/composition/announcement-services';
import { defineEndpoint } from '../shared/composition/app-functions';
import { ANNOUNCEMENT, announcementExample } from '../shared/openapi/api-schemas';

/** POST /api/v1/announcements/{id}/submit (its author): draft or rejected → queued. */
export const submitStep = defineEndpoint({
  name: 'announcements-submit',
  method: 'post',
  route: 'v1/announcements/{id}/submit',
  operationId: 'submitAnnouncement',
  tag: 'announcements',
  summary: 'Submit a draft for review',
  access: 'author or admin',
  success: { status: 200, description: 'The announcement after the step.', body: ANNOUNCEMENT, example: announcementExample },
  problems: ['forbidden', 'not_found', 'invalid_transition'],
  handler: ({ caller, request }, services) => answerWorkflowStep(request, services, (id, deps) => submitAnnouncement(caller.user, id, deps)),
});
