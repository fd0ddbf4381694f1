import { app } from '@azure/functions';
import { appAnnouncementDeps } from '../shared/composition/announcement-services';
import { updateAnnouncementBody } from '../shared/announcement-workflow/announcement-request-schemas';
import { toAnnouncementView } from '../shared/announcements/announcement-view';
import { updateAnnouncement } from '../shared/announcement-workflow/write-announcement';
import { endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';

/** PATCH /api/v1/announcements/{id} (its author): title, body and/or channels of a draft or rejected announcement. */
const route = 'v1/announcements/{id}';

export const editAnnouncement = endpoint({ route, body: updateAnnouncementBody, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const id = resourceIdParam.safeParse(scope.request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not an announcement id.' });
  const result = await updateAnnouncement(auth.user, id.data, scope.body, appAnnouncementDeps());
  if (!result.ok) return result.problem;
  return { status: 200, jsonBody: toAnnouncementView(result.announcement) };
});

app.http('announcements-update', { route, methods: ['PATCH'], authLevel: 'anonymous', handler: editAnnouncement });
