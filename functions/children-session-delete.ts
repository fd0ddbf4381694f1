import { defineEndpoint } from '../shared/composition/app-functions';
import { problem } from '../shared/errors/problem';
import { revokeChildSession } from '../shared/family/child-sessions';
import { resourceIdOf } from '../shared/http/resource-id';
import { readPublicSessionId } from '../shared/sessions/session-view';

/** DELETE /api/v1/children/{id}/sessions/{sessionId} (the parent): ends one of the child's live sessions, 204. */
export const deleteChildAccountSession = defineEndpoint({
  name: 'children-session-delete',
  method: 'delete',
  route: 'v1/children/{id}/sessions/{sessionId}',
  operationId: 'deleteChildSession',
  tag: 'children',
  summary: "End one of a child's live sessions",
  access: 'the parent',
  success: { status: 204, description: 'The session ended.' },
  problems: ['forbidden', 'not_found'],
  handler: async ({ caller, request }, services) => {
    const path = resourceIdOf(request.params, 'a child account');
    if (!path.ok) return path.problem;
    const sessionId = readPublicSessionId(request.params.sessionId);
    if (!sessionId) return problem('invalid_request', { detail: 'sessionId: not a session id.' });
    const result = await revokeChildSession(caller.user, path.id, sessionId, services.corePorts);
    if (!result.ok) return result.problem;
    return { status: 204 };
  },
});
