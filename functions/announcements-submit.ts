import { app } from '@azure/functions';
import { announcementDepsOf } from '../shared/announcements/announcement-deps';
import { toAnnouncementView } from '../shared/announcements/announcement-view';
import { submitAnnouncement } from '../shared/announcements/take-workflow-step';
import { appServices } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';

/** POST /api/v1/announcements/{id}/submit (its author): draft or rejected → queued. */
const route = 'v1/announcements/{id}/submit';
const services = appServices();
const deps = announcementDepsOf(services);

export const submitStep = services.endpoint({ route, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const id = resourceIdParam.safeParse(scope.request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not an announcement id.' });
  const result = await submitAnnouncement(auth.user, id.data, deps);
  if (!result.ok) return result.problem;
  return { status: 200, jsonBody: toAnnouncementView(result.announcement) };
});

app.http('announcements-submit', { route, methods: ['POST'], authLevel: 'anonymous', handler: submitStep });
