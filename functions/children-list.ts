import { app } from '@azure/functions';
import { toChildAccountView } from '../shared/children/child-account';
import { listChildrenOfParent } from '../shared/children/child-account-store';
import { appServices, endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { encodeCursor, readPage } from '../shared/http/read-page';

/** GET /api/v1/children (authenticated adult): the caller's children, a page at a time. */
const route = 'v1/children';

export const listChildAccounts = endpoint({ route, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  if (auth.user.accountType !== 'adult') return problem('forbidden', { detail: 'Only adults manage child accounts.' });
  const page = readPage(scope.request);
  if (!page.ok) return page.problem;
  const db = await appServices().database.get();
  const { items, next } = await listChildrenOfParent(db, auth.user.id, page.value);
  return { status: 200, jsonBody: { items: items.map(toChildAccountView), nextCursor: next ? encodeCursor(next) : null } };
});

app.http('children-list', { route, methods: ['GET'], authLevel: 'anonymous', handler: listChildAccounts });
