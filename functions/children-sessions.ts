import { app } from '@azure/functions';
import { listChildSessions, revokeChildSessions } from '../shared/family/child-sessions';
import { appServices, endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';

/**
 * GET /api/v1/children/{id}/sessions (authenticated parent): the child's live sessions, newest first.
 * DELETE /api/v1/children/{id}/sessions: ends all of them, 204.
 */
const route = 'v1/children/{id}/sessions';

export const listChildAccountSessions = endpoint({ route, authenticated: true }, async ({ caller, request }) => {
  const id = resourceIdParam.safeParse(request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not a child account id.' });
  const result = await listChildSessions(caller.user, id.data, appServices().auth);
  if (!result.ok) return result.problem;
  return { status: 200, jsonBody: { items: result.value, nextCursor: null } };
});

export const deleteChildAccountSessions = endpoint({ route, authenticated: true }, async ({ caller, request }) => {
  const id = resourceIdParam.safeParse(request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not a child account id.' });
  const result = await revokeChildSessions(caller.user, id.data, appServices().auth);
  if (!result.ok) return result.problem;
  return { status: 204 };
});

app.http('children-sessions-list', { route, methods: ['GET'], authLevel: 'anonymous', handler: listChildAccountSessions });
app.http('children-sessions-delete-all', { route, methods: ['DELETE'], authLevel: 'anonymous', handler: deleteChildAccountSessions });
