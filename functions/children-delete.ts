import { app } from '@azure/functions';
import { requireSession } from '../shared/auth/require-session';
import { idParam } from '../shared/children/child-request-schemas';
import { deleteChild } from '../shared/children/update-child';
import { appServices } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';

/** DELETE /api/v1/children/{id} (authenticated parent): disables the child and revokes its sessions. */
const route = 'v1/children/{id}';
const services = appServices();

export const deleteChildAccount = services.endpoint({ route }, async (scope) => {
  const auth = await requireSession(scope, services.auth);
  if (!auth.ok) return auth.problem;
  const id = idParam.safeParse(scope.request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not a child account id.' });
  const result = await deleteChild(auth.user, id.data, services.childAuth);
  if (!result.ok) return result.problem;
  return { status: 204 };
});

app.http('children-delete', { route, methods: ['DELETE'], authLevel: 'anonymous', handler: deleteChildAccount });
