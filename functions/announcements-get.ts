import { app } from '@azure/functions';
import { appAnnouncementDeps } from '../shared/composition/announcement-services';
import { toAnnouncementView } from '../shared/announcements/announcement-view';
import { getAnnouncement } from '../shared/announcement-workflow/read-announcements';
import { endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';

/** GET /api/v1/announcements/{id}: one announcement the caller may see (children: with the `announcements` scope). */
const route = 'v1/announcements/{id}';

export const readAnnouncement = endpoint({ route, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const id = resourceIdParam.safeParse(scope.request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not an announcement id.' });
  const result = await getAnnouncement(auth.user, id.data, appAnnouncementDeps());
  if (!result.ok) return result.problem;
  return { status: 200, jsonBody: toAnnouncementView(result.announcement) };
});

app.http('announcements-get', { route, methods: ['GET'], authLevel: 'anonymous', handler: readAnnouncement });
