import { defineEndpoint } from '../shared/composition/app-functions';
import { eraseInactiveAdult } from '../shared/data-rights/erase-account';
import { resourceIdOf } from '../shared/http/resource-id';

/**
 * DELETE /api/v1/users/{id} (admin): erases an adult pending approval or disabled, 204; 409
 * `invalid_transition` for an active adult (they erase themselves) and `children_not_erased`.
 */
export const eraseUser = defineEndpoint({
  name: 'users-delete',
  method: 'delete',
  route: 'v1/users/{id}',
  operationId: 'eraseUser',
  tag: 'users',
  summary: 'Erase an adult pending approval or disabled (an active adult erases themselves)',
  access: 'admin',
  success: { status: 204, description: 'The account is erased.' },
  problems: ['forbidden', 'not_found', 'invalid_transition', 'children_not_erased'],
  handler: async ({ caller, request }, services) => {
    const path = resourceIdOf(request.params, 'a user');
    if (!path.ok) return path.problem;
    const result = await eraseInactiveAdult(caller.user, path.id, services.corePorts);
    if (!result.ok) return result.problem;
    return { status: 204 };
  },
});
