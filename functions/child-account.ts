import { defineEndpoint } from '../shared/composition/app-functions';
import { problem } from '../shared/errors/problem';
import { secretOf, updateChildBody } from '../shared/family/child-request-schemas';
import { deleteChild, updateChild } from '../shared/family/update-child';
import { resourceIdOf } from '../shared/http/resource-id';
import { booleanParam, CHILD, childExample } from '../shared/openapi/api-schemas';

/** One child account, to its parent: changing it, and deleting or erasing it. */
const route = 'v1/children/{id}';

/** PATCH (the parent): scopes, secret and/or status of a child. */
export const updateChildAccount = defineEndpoint({
  name: 'children-update',
  method: 'patch',
  route,
  operationId: 'updateChild',
  tag: 'children',
  summary: "Change a child's sections, secret or status",
  description: "A new secret or disabling revokes the child's sessions; new sections are a new consent.",
  access: 'the parent',
  body: { name: 'UpdateChildRequest', schema: updateChildBody, example: { scopes: ['announcements', 'events'] } },
  success: { status: 200, description: 'The child account after the change.', body: CHILD, example: childExample },
  problems: ['forbidden', 'not_found', 'weak_secret'],
  handler: async ({ caller, body, request }, services) => {
    const path = resourceIdOf(request.params, 'a child account');
    if (!path.ok) return path.problem;
    const secret = secretOf(body);
    const result = await updateChild(
      caller.user,
      path.id,
      {
        ...(body.scopes ? { scopes: body.scopes } : {}),
        ...(secret ? { secret } : {}),
        ...(body.status ? { status: body.status } : {}),
      },
      services.childAccountPorts,
    );
    if (!result.ok) return result.problem;
    return { status: 200, jsonBody: result.child };
  },
});

/** DELETE (the parent): disables the child and revokes its sessions; `?erase=true` also withdraws all of the parent's consent. */
export const deleteChildAccount = defineEndpoint({
  name: 'children-delete',
  method: 'delete',
  route,
  operationId: 'deleteChild',
  tag: 'children',
  summary: 'Delete (disable) a child account, or erase it',
  access: 'the parent',
  query: [booleanParam('erase', 'Withdraw all consent and erase the child.')],
  success: { status: 204, description: 'Deleted (or erased).' },
  problems: ['forbidden', 'not_found'],
  handler: async ({ caller, request }, services) => {
    const path = resourceIdOf(request.params, 'a child account');
    if (!path.ok) return path.problem;
    const erase = request.query.get('erase');
    if (erase !== null && erase !== 'true' && erase !== 'false') return problem('invalid_request', { detail: 'erase: true or false.' });
    const result = await deleteChild(caller.user, path.id, services.childAccountPorts, { erase: erase === 'true' });
    if (!result.ok) return result.problem;
    return { status: 204 };
  },
});
