import { app } from '@azure/functions';
import { appAnnouncementDeps } from '../shared/composition/announcement-services';
import { toAnnouncementView } from '../shared/announcements/announcement-view';
import { submitAnnouncement } from '../shared/announcement-workflow/take-workflow-step';
import { endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';

/** POST /api/v1/announcements/{id}/submit (its author): draft or rejected → queued. */
const route = 'v1/announcements/{id}/submit';

export const submitStep = endpoint({ route, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const id = resourceIdParam.safeParse(scope.request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not an announcement id.' });
  const result = await submitAnnouncement(auth.user, id.data, appAnnouncementDeps());
  if (!result.ok) return result.problem;
  return { status: 200, jsonBody: toAnnouncementView(result.announcement) };
});

app.http('announcements-submit', { route, methods: ['POST'], authLevel: 'anonymous', handler: submitStep });
