import { app } from '@azure/functions';
import { listChildConsents } from '../shared/family/child-consents';
import { appServices, endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { resourceIdParam } from '../shared/http/resource-id';

/** GET /api/v1/children/{id}/consents (authenticated parent): the parent's consents for the child, newest first. */
const route = 'v1/children/{id}/consents';

export const listChildAccountConsents = endpoint({ route, authenticated: true }, async ({ caller, request }) => {
  const id = resourceIdParam.safeParse(request.params.id);
  if (!id.success) return problem('invalid_request', { detail: 'id: not a child account id.' });
  const result = await listChildConsents(caller.user, id.data, appServices().auth);
  if (!result.ok) return result.problem;
  // One page: a child has few consents (see MAX_LISTED_CONSENTS).
  return { status: 200, jsonBody: { items: result.value, nextCursor: null } };
});

app.http('children-consents-list', { route, methods: ['GET'], authLevel: 'anonymous', handler: listChildAccountConsents });
