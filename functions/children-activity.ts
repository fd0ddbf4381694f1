import { ACTIVITY_PAGE, activityItemSchema, listChildActivity } from '../shared/children/child-activity';
import { defineEndpoint } from '../shared/composition/app-functions';
import { encodeCursor, readPage } from '../shared/http/read-page';
import { resourceIdOf } from '../shared/http/resource-id';
import { cursorParam, EXAMPLE_TIME, limitParam } from '../shared/openapi/api-schemas';
import { pageOf } from '../shared/users/api-fields';

/**
 * GET /api/v1/children/{id}/activity?limit=&cursor= (the parent): the child's recent sign-ins,
 * failures, locks and section refusals from the audit log, newest first (time, outcome, reason;
 * `limit` 1 to 100, default 20).
 */
export const listChildAccountActivity = defineEndpoint({
  name: 'children-activity',
  method: 'get',
  route: 'v1/children/{id}/activity',
  operationId: 'listChildActivity',
  tag: 'children',
  summary: "A child's sign-ins, failures, locks and refusals, newest first",
  access: 'the parent',
  query: [limitParam(ACTIVITY_PAGE), cursorParam],
  success: {
    status: 200,
    description: 'One page.',
    body: { name: 'ActivityPage', schema: () => pageOf(activityItemSchema.schema()) },
    example: { items: [{ time: EXAMPLE_TIME, outcome: 'sign_in_failed', reason: 'bad_credentials' }], nextCursor: null },
  },
  problems: ['forbidden', 'not_found'],
  handler: async ({ caller, request }, services) => {
    const path = resourceIdOf(request.params, 'a child account');
    if (!path.ok) return path.problem;
    const page = readPage(request, ACTIVITY_PAGE);
    if (!page.ok) return page.problem;
    const result = await listChildActivity(caller.user, path.id, page.value, services);
    if (!result.ok) return result.problem;
    const { items, next } = result.value;
    return { status: 200, jsonBody: { items, nextCursor: next ? encodeCursor(next) : null } };
  },
});
