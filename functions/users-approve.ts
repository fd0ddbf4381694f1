import { defineEndpoint } from '../shared/composition/app-functions';
import { approveUser } from '../shared/data-rights/administer-users';
import { resourceIdOf } from '../shared/http/resource-id';
import { USER, userExample } from '../shared/openapi/api-schemas';
import { toUserView } from '../shared/users/user-view';

/** POST /api/v1/users/{id}/approve (admin): activates an account pending approval. */
export const approve = defineEndpoint({
  name: 'users-approve',
  method: 'post',
  route: 'v1/users/{id}/approve',
  operationId: 'approveUser',
  tag: 'users',
  summary: 'Approve an adult pending approval',
  access: 'admin',
  success: { status: 200, description: 'The user, now active.', body: USER, example: userExample },
  problems: ['forbidden', 'not_found', 'invalid_transition'],
  handler: async ({ caller, request }, services) => {
    const path = resourceIdOf(request.params, 'a user');
    if (!path.ok) return path.problem;
    const result = await approveUser(caller.user, path.id, services.corePorts);
    if (!result.ok) return result.problem;
    return { status: 200, jsonBody: toUserView(result.user) };
  },
});
