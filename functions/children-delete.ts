import { app } from '@azure/functions';
import { deleteChild } from '../shared/family/update-child';
import { appServices, endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';

/**
 * DELETE /api/v1/children/{id} (authenticated parent): disables the child and revokes its sessions;
 * `?erase=true` also withdraws all of the parent's consent.
 */
const route = 'v1/children/{id}';

export const deleteChildAccount = endpoint({ route, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const id = resourceIdParam.safeParse(scope.request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not a child account id.' });
  const erase = scope.request.query.get('erase');
  if (erase !== null && erase !== 'true' && erase !== 'false') return problem('invalid_request', { detail: 'erase: true or false.' });
  const result = await deleteChild(auth.user, id.data, appServices().childAuth, { erase: erase === 'true' });
  if (!result.ok) return result.problem;
  return { status: 204 };
});

app.http('children-delete', { route, methods: ['DELETE'], authLevel: 'anonymous', handler: deleteChildAccount });
