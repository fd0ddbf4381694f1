import { defineEndpoint } from '../shared/composition/app-functions';
import { problem } from '../shared/errors/problem';
import { revokeSession } from '../shared/sessions/manage-sessions';
import { readPublicSessionId } from '../shared/sessions/session-view';

/**
 * DELETE /api/v1/me/sessions/{id} (signed in): ends one of the caller's live sessions by the id
 * the list shows, 204; the presented one may be ended too. Anyone else's id is 404.
 */
export const deleteOwnSession = defineEndpoint({
  name: 'me-session-delete',
  method: 'delete',
  route: 'v1/me/sessions/{id}',
  operationId: 'deleteOwnSession',
  tag: 'me',
  summary: "End one of the caller's live sessions",
  access: 'signed in',
  success: { status: 204, description: 'The session ended.' },
  problems: ['not_found'],
  handler: async ({ caller, request }, services) => {
    const id = readPublicSessionId(request.params.id);
    if (!id) return problem('invalid_request', { detail: 'id: not a session id.' });
    const revoker = { actorUserId: caller.user.id, currentRowId: caller.session.id };
    if (!(await revokeSession(caller.user.id, id, revoker, services.corePorts))) return problem('not_found', { detail: 'No such session.' });
    return { status: 204 };
  },
});
