import { app } from '@azure/functions';
import { appServices, endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';
import { changeUserRole } from '../shared/data-rights/administer-users';
import { roleChangeBody as body } from '../shared/data-rights/user-request-schemas';
import { toUserView } from '../shared/users/user-view';

/** PATCH /api/v1/users/{id}/role (admin): `member`, `author` or `admin`; revokes the user's sessions. */
const route = 'v1/users/{id}/role';

export const changeRole = endpoint({ route, body, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const id = resourceIdParam.safeParse(scope.request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not a user id.' });
  const result = await changeUserRole(auth.user, id.data, scope.body.role, appServices().auth);
  if (!result.ok) return result.problem;
  return { status: 200, jsonBody: toUserView(result.user) };
});

app.http('users-role', { route, methods: ['PATCH'], authLevel: 'anonymous', handler: changeRole });
