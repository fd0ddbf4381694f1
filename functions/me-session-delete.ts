import { app } from '@azure/functions';
import { appServices, endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { revokeSession } from '../shared/sessions/manage-sessions';
import { readPublicSessionId } from '../shared/sessions/session-view';

/**
 * DELETE /api/v1/me/sessions/{id} (authenticated): ends one of the caller's live sessions by the id
 * the list shows, 204; the presented one may be ended too. Anyone else's id is 404.
 */
const route = 'v1/me/sessions/{id}';

export const deleteOwnSession = endpoint({ route, authenticated: true }, async ({ caller, request }) => {
  const id = readPublicSessionId(request.params.id);
  if (!id) return problem('invalid_request', { detail: 'id: not a session id.' });
  const revoker = { actorUserId: caller.user.id, currentRowId: caller.session.id };
  if (!(await revokeSession(caller.user.id, id, revoker, appServices().auth))) return problem('not_found', { detail: 'No such session.' });
  return { status: 204 };
});

app.http('me-session-delete', { route, methods: ['DELETE'], authLevel: 'anonymous', handler: deleteOwnSession });
