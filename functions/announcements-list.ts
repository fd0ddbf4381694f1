import { app } from '@azure/functions';
import { appAnnouncementDeps } from '../shared/composition/announcement-services';
import { ANNOUNCEMENT_STATUSES } from '../shared/announcements/announcement';
import { statusFilter } from '../shared/announcement-workflow/announcement-request-schemas';
import { toAnnouncementView } from '../shared/announcements/announcement-view';
import { listVisibleAnnouncements } from '../shared/announcement-workflow/read-announcements';
import { endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { encodeCursor, readPage } from '../shared/http/read-page';

/** GET /api/v1/announcements?status=&limit=&cursor=: the announcements the caller may see, newest first. */
const route = 'v1/announcements';

export const listAnnouncementsEndpoint = endpoint({ route, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const status = statusFilter.safeParse(scope.request.query.get('status') ?? undefined);
  if (!status.success) return problem('invalid_request', { detail: `status: one of ${ANNOUNCEMENT_STATUSES.join(', ')}.` });
  const page = readPage(scope.request);
  if (!page.ok) return page.problem;
  const result = await listVisibleAnnouncements(
    auth.user,
    { ...page.value, ...(status.data === undefined ? {} : { status: status.data }) },
    appAnnouncementDeps(),
  );
  if (!result.ok) return result.problem;
  return {
    status: 200,
    jsonBody: { items: result.items.map(toAnnouncementView), nextCursor: result.next ? encodeCursor(result.next) : null },
  };
});

app.http('announcements-list', { route, methods: ['GET'], authLevel: 'anonymous', handler: listAnnouncementsEndpoint });
