import { sessionResponseBody } from '../shared/auth/session-response';
import { childSessionBody } from '../shared/auth/sign-in-request-schemas';
import { signInChild } from '../shared/auth/sign-in-child';
import { defineEndpoint } from '../shared/composition/app-functions';
import { clientAddress } from '../shared/http/client-address';
import { EXAMPLE_ID, EXAMPLE_TIME, SESSION } from '../shared/openapi/api-schemas';
import { clientLabelOf } from '../shared/sessions/client-label';

/** POST /api/v1/auth/child-session (public): a child's username and PIN or password for a session. */
export const createChildSession = defineEndpoint({
  name: 'auth-child-session-create',
  method: 'post',
  route: 'v1/auth/child-session',
  operationId: 'createChildSession',
  tag: 'auth',
  summary: 'Sign a child in with username and PIN (or password)',
  description: 'Send exactly one of `pin` and `password`. A malformed value is a wrong credential (401), never a 400.',
  access: 'public',
  body: { name: 'ChildSessionRequest', schema: childSessionBody, example: { username: 'sam_k', pin: '482915' } },
  success: {
    status: 200,
    description: "A new session, with the child's sections.",
    body: SESSION,
    example: {
      token: 'aaaaaaaa.bbbbbbbb',
      tokenType: 'Bearer',
      expiresAt: EXAMPLE_TIME,
      user: { id: EXAMPLE_ID, role: 'child', status: 'active', accountType: 'child', scopes: ['announcements'] },
    },
  },
  problems: ['invalid_credentials', 'account_pending_approval', 'account_disabled', 'too_many_attempts'],
  handler: async ({ body, request }, services) => {
    const result = await signInChild(
      {
        username: body.username,
        secret: 'pin' in body ? body.pin : body.password,
        clientAddress: clientAddress(request.headers.get('x-forwarded-for'), services.config.trustProxyHops),
        clientLabel: clientLabelOf(request.headers.get('user-agent')),
      },
      services.childAccountPorts,
    );
    if (!result.ok) return result.problem;
    return { status: 200, jsonBody: sessionResponseBody(result.user, result.started, result.child.scopes) };
  },
});
