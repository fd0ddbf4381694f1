import { childConsentViewSchema } from '../shared/children/child-consent';
import { defineEndpoint } from '../shared/composition/app-functions';
import { listChildConsents } from '../shared/family/child-consents';
import { resourceIdOf } from '../shared/http/resource-id';
import { pageOf } from '../shared/users/api-fields';

/** GET /api/v1/children/{id}/consents (the parent): the parent's consents for the child, newest first. */
export const listChildAccountConsents = defineEndpoint({
  name: 'children-consents-list',
  method: 'get',
  route: 'v1/children/{id}/consents',
  operationId: 'listChildConsents',
  tag: 'children',
  summary: "The parent's consents for a child, newest first",
  access: 'the parent',
  success: { status: 200, description: 'One page; `nextCursor` is always null.', body: { name: 'ConsentList', schema: () => pageOf(childConsentViewSchema.schema()) } },
  problems: ['forbidden', 'not_found'],
  handler: async ({ caller, request }, services) => {
    const path = resourceIdOf(request.params, 'a child account');
    if (!path.ok) return path.problem;
    const result = await listChildConsents(caller.user, path.id, services.corePorts);
    if (!result.ok) return result.problem;
    // One page: a child has few consents (see MAX_LISTED_CONSENTS).
    return { status: 200, jsonBody: { items: result.value, nextCursor: null } };
  },
});
