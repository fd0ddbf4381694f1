import { app } from '@azure/functions';
import { sessionResponseBody } from '../shared/auth/session-response';
import { childSessionBody as body } from '../shared/auth/sign-in-request-schemas';
import { signInChild } from '../shared/auth/sign-in-child';
import { appConfig, appServices, endpoint } from '../shared/composition-root';
import { clientAddress } from '../shared/http/client-address';
import { clientLabelOf } from '../shared/sessions/client-label';

/** POST /api/v1/auth/child-session (public): a child's username and PIN or password for a session. */
const route = 'v1/auth/child-session';
const config = appConfig();

export const createChildSession = endpoint({ route, body }, async ({ body, request }) => {
  const result = await signInChild(
    {
      username: body.username,
      secret: 'pin' in body ? body.pin : body.password,
      clientAddress: clientAddress(request.headers.get('x-forwarded-for'), config.trustProxyHops),
      clientLabel: clientLabelOf(request.headers.get('user-agent')),
    },
    appServices().childAuth,
  );
  if (!result.ok) return result.problem;
  return { status: 200, jsonBody: sessionResponseBody(result.user, result.started, result.child.scopes) };
});

app.http('auth-child-session-create', { route, methods: ['POST'], authLevel: 'anonymous', handler: createChildSession });
