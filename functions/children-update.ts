import { app } from '@azure/functions';
import { secretOf, updateChildBody } from '../shared/family/child-request-schemas';
import { updateChild } from '../shared/family/update-child';
import { appServices, endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';

/** PATCH /api/v1/children/{id} (authenticated parent): scopes, secret and/or status of a child. */
const route = 'v1/children/{id}';

export const updateChildAccount = endpoint({ route, body: updateChildBody, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const id = resourceIdParam.safeParse(scope.request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not a child account id.' });
  const secret = secretOf(scope.body);
  const result = await updateChild(
    auth.user,
    id.data,
    {
      ...(scope.body.scopes ? { scopes: scope.body.scopes } : {}),
      ...(secret ? { secret } : {}),
      ...(scope.body.status ? { status: scope.body.status } : {}),
    },
    appServices().childAuth,
  );
  if (!result.ok) return result.problem;
  return { status: 200, jsonBody: result.child };
});

app.http('children-update', { route, methods: ['PATCH'], authLevel: 'anonymous', handler: updateChildAccount });
