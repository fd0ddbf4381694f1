import { app } from '@azure/functions';
import { createChildBody, secretOf } from '../shared/family/child-request-schemas';
import { createChild } from '../shared/family/create-child';
import { appServices, endpoint } from '../shared/composition-root';

/** POST /api/v1/children (authenticated adult): creates a child sub-account. */
const route = 'v1/children';

export const createChildAccount = endpoint({ route, body: createChildBody, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const secret = secretOf(scope.body);
  if (!secret) throw new Error('the body schema guarantees a secret');
  const result = await createChild(
    auth.user,
    { username: scope.body.username, secret, scopes: scope.body.scopes },
    appServices().childAuth,
  );
  if (!result.ok) return result.problem;
  return { status: 201, jsonBody: result.child };
});

app.http('children-create', { route, methods: ['POST'], authLevel: 'anonymous', handler: createChildAccount });
