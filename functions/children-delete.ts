import { app } from '@azure/functions';
import { deleteChild } from '../shared/children/update-child';
import { appServices } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';

/** DELETE /api/v1/children/{id} (authenticated parent): disables the child and revokes its sessions. */
const route = 'v1/children/{id}';
const services = appServices();

export const deleteChildAccount = services.endpoint({ route, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const id = resourceIdParam.safeParse(scope.request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not a child account id.' });
  const result = await deleteChild(auth.user, id.data, services.childAuth);
  if (!result.ok) return result.problem;
  return { status: 204 };
});

app.http('children-delete', { route, methods: ['DELETE'], authLevel: 'anonymous', handler: deleteChildAccount });
