import { listChildrenOfParent } from '../shared/children/child-account-store';
import { toChildAccountView } from '../shared/children/child-account';
import { defineEndpoint } from '../shared/composition/app-functions';
import { problem } from '../shared/errors/problem';
import { createChildBody, secretOf } from '../shared/family/child-request-schemas';
import { createChild } from '../shared/family/create-child';
import { encodeCursor, readPage } from '../shared/http/read-page';
import { CHILD, CHILD_PAGE, childExample, cursorParam, limitParam, PAGE } from '../shared/openapi/api-schemas';

/** An adult's child accounts: creating one, and the list. */
const route = 'v1/children';

/** POST (adult): creates a child sub-account. */
export const createChildAccount = defineEndpoint({
  name: 'children-create',
  method: 'post',
  route,
  operationId: 'createChild',
  tag: 'children',
  summary: "Create a child account (records the parent's consent)",
  description: 'Send exactly one of `pin` and `password`. A weak secret answers 400 `weak_secret` with an `errors` entry naming the broken rule.',
  access: 'adult',
  body: { name: 'CreateChildRequest', schema: createChildBody, example: { username: 'sam_k', pin: '482915', scopes: ['announcements'] } },
  success: { status: 201, description: 'The child account.', body: CHILD, example: childExample },
  problems: ['forbidden', 'weak_secret', 'username_taken'],
  handler: async ({ caller, body }, services) => {
    const secret = secretOf(body);
    if (!secret) throw new Error('the body schema guarantees a secret');
    const result = await createChild(caller.user, { username: body.username, secret, scopes: body.scopes }, services.childAccountPorts);
    if (!result.ok) return result.problem;
    return { status: 201, jsonBody: result.child };
  },
});

/** GET (adult): the caller's children, a page at a time. */
export const listChildAccounts = defineEndpoint({
  name: 'children-list',
  method: 'get',
  route,
  operationId: 'listChildren',
  tag: 'children',
  summary: "The caller's child accounts",
  access: 'adult',
  query: [limitParam(PAGE), cursorParam],
  success: { status: 200, description: 'One page.', body: CHILD_PAGE, example: { items: [childExample], nextCursor: null } },
  problems: ['forbidden'],
  handler: async ({ caller, request }, services) => {
    if (caller.user.accountType !== 'adult') return problem('forbidden', { detail: 'Only adults manage child accounts.' });
    const page = readPage(request);
    if (!page.ok) return page.problem;
    const db = await services.database.get();
    const { items, next } = await listChildrenOfParent(db, caller.user.id, page.value);
    return { status: 200, jsonBody: { items: items.map(toChildAccountView), nextCursor: next ? encodeCursor(next) : null } };
  },
});
