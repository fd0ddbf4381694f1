import { app } from '@azure/functions';
import { appServices, endpoint } from '../shared/composition-root';
import { eraseOwnAccount } from '../shared/data-rights/erase-account';

/**
 * DELETE /api/v1/me (authenticated adult): erases the caller's account, 204; 409
 * `children_not_erased` while a child of theirs is not erased; 403 for a child's token.
 */
const route = 'v1/me';

export const eraseOwnData = endpoint({ route, authenticated: true }, async ({ caller }) => {
  const result = await eraseOwnAccount(caller.user, appServices().auth);
  if (!result.ok) return result.problem;
  return { status: 204 };
});

app.http('me-delete', { route, methods: ['DELETE'], authLevel: 'anonymous', handler: eraseOwnData });
