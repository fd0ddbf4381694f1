import { app } from '@azure/functions';
import { ACTIVITY_PAGE, listChildActivity } from '../shared/children/child-activity';
import { appServices, endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { encodeCursor, readPage } from '../shared/http/read-page';
import { resourceIdParam } from '../shared/http/resource-id';

/**
 * GET /api/v1/children/{id}/activity?limit=&cursor= (authenticated parent): the child's recent
 * sign-ins, failures, locks and section refusals from the audit log, newest first (time, outcome,
 * reason; `limit` 1 to 100, default 20).
 */
const route = 'v1/children/{id}/activity';

export const listChildAccountActivity = endpoint({ route, authenticated: true }, async ({ caller, request }) => {
  const id = resourceIdParam.safeParse(request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not a child account id.' });
  const page = readPage(request, ACTIVITY_PAGE);
  if (!page.ok) return page.problem;
  const result = await listChildActivity(caller.user, id.data, page.value, appServices());
  if (!result.ok) return result.problem;
  const { items, next } = result.value;
  return { status: 200, jsonBody: { items, nextCursor: next ? encodeCursor(next) : null } };
});

app.http('children-activity', { route, methods: ['GET'], authLevel: 'anonymous', handler: listChildAccountActivity });
