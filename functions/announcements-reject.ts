import { app } from '@azure/functions';
import { appAnnouncementDeps } from '../shared/composition/announcement-services';
import { rejectAnnouncementBody } from '../shared/announcement-workflow/announcement-request-schemas';
import { toAnnouncementView } from '../shared/announcements/announcement-view';
import { rejectAnnouncement } from '../shared/announcement-workflow/take-workflow-step';
import { endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';

/** POST /api/v1/announcements/{id}/reject { reason } (admin): queued → rejected; the reason is stored, never logged. */
const route = 'v1/announcements/{id}/reject';

export const rejectStep = endpoint({ route, body: rejectAnnouncementBody, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const id = resourceIdParam.safeParse(scope.request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not an announcement id.' });
  const result = await rejectAnnouncement(auth.user, id.data, scope.body.reason, appAnnouncementDeps());
  if (!result.ok) return result.problem;
  return { status: 200, jsonBody: toAnnouncementView(result.announcement) };
});

app.http('announcements-reject', { route, methods: ['POST'], authLevel: 'anonymous', handler: rejectStep });
