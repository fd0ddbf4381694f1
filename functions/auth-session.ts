import { sessionResponseBody } from '../shared/auth/session-response';
import { signInAdult } from '../shared/auth/sign-in-adult';
import { adultSessionBody } from '../shared/auth/sign-in-request-schemas';
import { signOut } from '../shared/auth/sign-out';
import { defineEndpoint } from '../shared/composition/app-functions';
import { clientAddress } from '../shared/http/client-address';
import { EXAMPLE_ID, EXAMPLE_TIME, SESSION } from '../shared/openapi/api-schemas';
import { clientLabelOf } from '../shared/sessions/client-label';

/** The adult's session: signing in with an identity-provider ID token, and signing out. */
const route = 'v1/auth/session';

/** POST (public): an identity-provider ID token for a platform session. */
export const createAdultSession = defineEndpoint({
  name: 'auth-session-create',
  method: 'post',
  route,
  operationId: 'createAdultSession',
  tag: 'auth',
  summary: 'Exchange an identity-provider ID token for a session',
  description:
    'Failed sign-ins past the limits answer 429 with `Retry-After`; a valid token is never refused by them. 503 `idp_unavailable` when the provider keys cannot be read.',
  access: 'public',
  body: { name: 'AdultSessionRequest', schema: adultSessionBody, example: { idToken: 'eyJhbGciOiJSUzI1NiIsImtpZCI6Ii4uLiJ9.eyJpc3MiOiIuLi4ifQ.c2ln' } },
  success: {
    status: 200,
    description: 'A new session.',
    body: SESSION,
    example: { token: 'aaaaaaaa.bbbbbbbb', tokenType: 'Bearer', expiresAt: EXAMPLE_TIME, user: { id: EXAMPLE_ID, role: 'member', status: 'active', accountType: 'adult' } },
  },
  problems: ['invalid_token', 'account_pending_approval', 'account_disabled', 'too_many_attempts', 'idp_unavailable'],
  handler: async ({ body, request }, services) => {
    const { config } = services;
    const result = await signInAdult(
      body.idToken,
      {
        ...services.corePorts,
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
  },
});

/** DELETE (signed in): signs out and revokes the presented session. */
export const deleteSession = defineEndpoint({
  name: 'auth-session-delete',
  method: 'delete',
  route,
  operationId: 'deleteSession',
  tag: 'auth',
  summary: 'Sign out: revoke the presented session',
  access: 'signed in',
  success: { status: 204, description: 'The token is revoked.' },
  problems: [],
  handler: async ({ caller }, services) => {
    await signOut(caller.session, services.corePorts);
    return { status: 204 };
  },
});
