import { app } from '@azure/functions';
import { appServices, endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';
import { approveUser } from '../shared/data-rights/administer-users';
import { toUserView } from '../shared/users/user-view';

/** POST /api/v1/users/{id}/approve (admin): activates an account pending approval. */
const route = 'v1/users/{id}/approve';

export const approve = endpoint({ route, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const id = resourceIdParam.safeParse(scope.request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not a user id.' });
  const result = await approveUser(auth.user, id.data, appServices().auth);
  if (!result.ok) return result.problem;
  return { status: 200, jsonBody: toUserView(result.user) };
});

app.http('users-approve', { route, methods: ['POST'], authLevel: 'anonymous', handler: approve });
