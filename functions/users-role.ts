import { defineEndpoint } from '../shared/composition/app-functions';
import { changeUserRole } from '../shared/data-rights/administer-users';
import { roleChangeBody } from '../shared/data-rights/user-request-schemas';
import { resourceIdOf } from '../shared/http/resource-id';
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
    const path = resourceIdOf(request.params, 'a user');
    if (!path.ok) return path.problem;
    const result = await changeUserRole(caller.user, path.id, body.role, services.corePorts);
    if (!result.ok) return result.problem;
    return { status: 200, jsonBody: toUserView(result.user) };
  },
});
