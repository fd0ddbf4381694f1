import { app } from '@azure/functions';
import { appServices, endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { encodeCursor, readPage } from '../shared/http/read-page';
import { requireAdmin } from '../shared/users/admin-role';
import { USER_STATUSES, type UserStatus } from '../shared/users/user';
import { listAdultsByStatus } from '../shared/users/user-store';
import { toUserView } from '../shared/users/user-view';

/** GET /api/v1/users?status=pending_approval (admin): adults by status, oldest first. */
const route = 'v1/users';

export const listUsers = endpoint({ route, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const refused = requireAdmin(auth.user);
  if (refused) return refused;
  const status = scope.request.query.get('status') ?? 'pending_approval';
  if (!USER_STATUSES.includes(status as UserStatus)) {
    return problem('invalid_request', { detail: `status: one of ${USER_STATUSES.join(', ')}.` });
  }
  const page = readPage(scope.request);
  if (!page.ok) return page.problem;
  const { items, next } = await listAdultsByStatus(await appServices().database.get(), status as UserStatus, page.value);
  return { status: 200, jsonBody: { items: items.map(toUserView), nextCursor: next ? encodeCursor(next) : null } };
});

app.http('users-list', { route, methods: ['GET'], authLevel: 'anonymous', handler: listUsers });
