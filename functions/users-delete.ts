import { defineEndpoint } from '../shared/composition/app-functions';
import { eraseInactiveAdult } from '../shared/data-rights/erase-account';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';

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
    const id = resourceIdParam.safeParse(request.params.id);
    if (!id.success) return problem('invalid_request', { detail: 'id: not a user id.' });
    const result = await eraseInactiveAdult(caller.user, id.data, services.corePorts);
    if (!result.ok) return result.problem;
    return { status: 204 };
  },
});
