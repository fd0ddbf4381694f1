import { app } from '@azure/functions';
import { appAnnouncementDeps } from '../shared/composition/announcement-services';
import { createAnnouncementBody } from '../shared/announcement-workflow/announcement-request-schemas';
import { toAnnouncementView } from '../shared/announcements/announcement-view';
import { createAnnouncement } from '../shared/announcement-workflow/write-announcement';
import { endpoint } from '../shared/composition-root';

/** POST /api/v1/announcements (author, admin): a new draft. */
const route = 'v1/announcements';

export const createAnnouncementDraft = endpoint({ route, body: createAnnouncementBody, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const result = await createAnnouncement(auth.user, scope.body, appAnnouncementDeps());
  if (!result.ok) return result.problem;
  return { status: 201, jsonBody: toAnnouncementView(result.announcement) };
});

app.http('announcements-create', { route, methods: ['POST'], authLevel: 'anonymous', handler: createAnnouncementDraft });
