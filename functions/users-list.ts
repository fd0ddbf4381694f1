import { defineEndpoint } from '../shared/composition/app-functions';
import { problem } from '../shared/errors/problem';
import { encodeCursor, readPage } from '../shared/http/read-page';
import { cursorParam, limitParam, PAGE, USER_PAGE, userExample } from '../shared/openapi/api-schemas';
import { requireAdmin } from '../shared/users/admin-role';
import { USER_STATUSES, type UserStatus } from '../shared/users/user';
import { listAdultsByStatus } from '../shared/users/user-store';
import { toUserView } from '../shared/users/user-view';

/** GET /api/v1/users?status=pending_approval (admin): adults by status, oldest first. */
export const listUsers = defineEndpoint({
  name: 'users-list',
  method: 'get',
  route: 'v1/users',
  operationId: 'listUsers',
  tag: 'users',
  summary: 'Adults by status (default: pending approval)',
  access: 'admin',
  query: [
    { name: 'status', description: 'The status to list.', schema: { type: 'string', enum: [...USER_STATUSES], default: 'pending_approval' } },
    limitParam(PAGE),
    cursorParam,
  ],
  success: { status: 200, description: 'One page.', body: USER_PAGE, example: { items: [userExample], nextCursor: null } },
  problems: ['forbidden'],
  handler: async ({ caller, request }, services) => {
    const refused = requireAdmin(caller.user);
    if (refused) return refused;
    const status = request.query.get('status') ?? 'pending_approval';
    if (!USER_STATUSES.includes(status as UserStatus)) {
      return problem('invalid_request', { detail: `status: one of ${USER_STATUSES.join(', ')}.` });
    }
    const page = readPage(request);
    if (!page.ok) return page.problem;
    const { items, next } = await listAdultsByStatus(await services.database.get(), status as UserStatus, page.value);
    return { status: 200, jsonBody: { items: items.map(toUserView), nextCursor: next ? encodeCursor(next) : null } };
  },
});
