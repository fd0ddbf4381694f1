import { app } from '@azure/functions';
import { revokeChildSession } from '../shared/family/child-sessions';
import { appServices, endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';
import { readPublicSessionId } from '../shared/sessions/session-view';

/** DELETE /api/v1/children/{id}/sessions/{sessionId} (authenticated parent): ends one of the child's live sessions, 204. */
const route = 'v1/children/{id}/sessions/{sessionId}';

export const deleteChildAccountSession = endpoint({ route, authenticated: true }, async ({ caller, request }) => {
  const id = resourceIdParam.safeParse(request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not a child account id.' });
  const sessionId = readPublicSessionId(request.params.sessionId);
  if (!sessionId) return problem('invalid_request', { detail: 'sessionId: not a session id.' });
  const result = await revokeChildSession(caller.user, id.data, sessionId, appServices().auth);
  if (!result.ok) return result.problem;
  return { status: 204 };
});

app.http('children-session-delete', { route, methods: ['DELETE'], authLevel: 'anonymous', handler: deleteChildAccountSession });
