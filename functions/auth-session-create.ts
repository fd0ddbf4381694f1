import { app } from '@azure/functions';
import { sessionResponseBody } from '../shared/auth/session-response';
import { adultSessionBody as body } from '../shared/auth/sign-in-request-schemas';
import { signInAdult } from '../shared/auth/sign-in-adult';
import { appConfig, appServices, endpoint } from '../shared/composition-root';
import { clientAddress } from '../shared/http/client-address';
import { clientLabelOf } from '../shared/sessions/client-label';

/** POST /api/v1/auth/session (public): an identity-provider ID token for a platform session. */
const route = 'v1/auth/session';
const config = appConfig();

export const createAdultSession = endpoint({ route, body }, async ({ body, request }) => {
  const services = appServices();
  const result = await signInAdult(
    body.idToken,
    {
      ...services.auth,
      verifier: services.idTokenVerifier,
      newUserStatus: config.newUserStatus,
      bootstrapAdmins: config.bootstrapAdmins,
      throttle: services.adultSignInThrottle,
    },
    {
      clientLabel: clientLabelOf(request.headers.get('user-agent')),
      clientAddress: clientAddress(request.headers.get('x-forwarded-for'), config.trustProxyHops),
      nonce: body.nonce,
    },
  );
  if (!result.ok) return result.problem;
  return { status: 200, jsonBody: sessionResponseBody(result.user, result.started) };
});

app.http('auth-session-create', { route, methods: ['POST'], authLevel: 'anonymous', handler: createAdultSession });
