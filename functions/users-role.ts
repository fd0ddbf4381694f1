import { defineEndpoint } from '../shared/composition/app-functions';
import { changeUserRole } from '../shared/data-rights/administer-users';
import { roleChangeBody } from '../shared/data-rights/user-request-schemas';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';
import { USER, userExample } from '../shared/openapi/api-schemas';
import { toUserView } from '../shared/users/user-view';

/** PATCH /api/v1/users/{id}/role (admin): `member`, `author` or `admin`; revokes the user's sessions. */
export const changeRole = defineEndpoint({
  name: 'users-role',
  method: 'patch',
  route: 'v1/users/{id}/role',
  operationId: 'changeUserRole',
  tag: 'users',
  summary: "Change an adult's role (revokes their sessions)",
  access: 'admin',
  body: { name: 'RoleChangeRequest', schema: roleChangeBody, example: { role: 'author' } },
  success: { status: 200, description: 'The user.', body: USER, example: { ...userExample, role: 'author' } },
  problems: ['forbidden', 'not_found'],
  handler: async ({ caller, body, request }, services) => {
    const id = resourceIdParam.safeParse(request.params.id);
    if (!id.success) return problem('invalid_request', { detail: 'id: not a user id.' });
    const result = await changeUserRole(caller.user, id.data, body.role, services.corePorts);
    if (!result.ok) return result.problem;
    return { status: 200, jsonBody: toUserView(result.user) };
  },
});
