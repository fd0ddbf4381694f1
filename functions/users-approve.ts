import { defineEndpoint } from '../shared/composition/app-functions';
import { approveUser } from '../shared/data-rights/administer-users';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';
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
    const id = resourceIdParam.safeParse(request.params.id);
    if (!id.success) return problem('invalid_request', { detail: 'id: not a user id.' });
    const result = await approveUser(caller.user, id.data, services.corePorts);
    if (!result.ok) return result.problem;
    return { status: 200, jsonBody: toUserView(result.user) };
  },
});
