import { defineEndpoint } from '../shared/composition/app-functions';
import { listChildSessions, revokeChildSessions } from '../shared/family/child-sessions';
import { resourceIdOf } from '../shared/http/resource-id';
import { SESSION_LIST } from '../shared/openapi/api-schemas';

/** A child's live sessions, to its parent: the list, and ending them all. */
const route = 'v1/children/{id}/sessions';

/** GET (the parent): the child's live sessions, newest first. */
export const listChildAccountSessions = defineEndpoint({
  name: 'children-sessions-list',
  method: 'get',
  route,
  operationId: 'listChildSessions',
  tag: 'children',
  summary: "A child's live sessions",
  access: 'the parent',
  success: { status: 200, description: 'One page; `nextCursor` is always null.', body: SESSION_LIST },
  problems: ['forbidden', 'not_found'],
  handler: async ({ caller, request }, services) => {
    const path = resourceIdOf(request.params, 'a child account');
    if (!path.ok) return path.problem;
    const result = await listChildSessions(caller.user, path.id, services.corePorts);
    if (!result.ok) return result.problem;
    return { status: 200, jsonBody: { items: result.value, nextCursor: null } };
  },
});

/** DELETE (the parent): ends all of them, 204. */
export const deleteChildAccountSessions = defineEndpoint({
  name: 'children-sessions-delete-all',
  method: 'delete',
  route,
  operationId: 'deleteChildSessions',
  tag: 'children',
  summary: "End all of a child's live sessions",
  access: 'the parent',
  success: { status: 204, description: 'The sessions ended.' },
  problems: ['forbidden', 'not_found'],
  handler: async ({ caller, request }, services) => {
    const path = resourceIdOf(request.params, 'a child account');
    if (!path.ok) return path.problem;
    const result = await revokeChildSessions(caller.user, path.id, services.corePorts);
    if (!result.ok) return result.problem;
    return { status: 204 };
  },
});
