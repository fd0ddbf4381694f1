import { publishAnnouncement } from '../shared/announcement-workflow/take-workflow-step';
import { answerWorkflowStep } from '../shared/composition/announcement-services';
import { defineEndpoint } from '../shared/composition/app-functions';
import { ANNOUNCEMENT, announcementExample } from '../shared/openapi/api-schemas';

/** POST /api/v1/announcements/{id}/publish (admin): approved → published, and the fan-out enqueued. */
export const publishStep = defineEndpoint({
  name: 'announcements-publish',
  method: 'post',
  route: 'v1/announcements/{id}/publish',
  operationId: 'publishAnnouncement',
  tag: 'announcements',
  summary: 'Publish an approved announcement (starts the fan-out)',
  access: 'admin',
  success: { status: 200, description: 'The announcement after the step.', body: ANNOUNCEMENT, example: announcementExample },
  problems: ['forbidden', 'not_found', 'invalid_transition'],
  handler: ({ caller, request }, services) => answerWorkflowStep(request, services, (id, deps) => publishAnnouncement(caller.user, id, deps)),
});
