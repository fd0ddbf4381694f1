import { app } from '@azure/functions';
import { appServices, endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';
import { eraseInactiveAdult } from '../shared/data-rights/erase-account';

/**
 * DELETE /api/v1/users/{id} (admin): erases an adult pending approval or disabled, 204; 409
 * `invalid_transition` for an active adult (they erase themselves) and `children_not_erased`.
 */
const route = 'v1/users/{id}';

export const eraseUser = endpoint({ route, authenticated: true }, async (scope) => {
  const id = resourceIdParam.safeParse(scope.request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not a user id.' });
  const result = await eraseInactiveAdult(scope.caller.user, id.data, appServices().auth);
  if (!result.ok) return result.problem;
  return { status: 204 };
});

app.http('users-delete', { route, methods: ['DELETE'], authLevel: 'anonymous', handler: eraseUser });
