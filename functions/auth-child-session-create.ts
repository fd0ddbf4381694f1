import { app } from '@azure/functions';
import * as z from 'zod/mini';
import { lazySchema } from '../shared/validation/lazy-schema';
import { sessionResponseBody } from '../shared/auth/session-response';
import { signInChild } from '../shared/auth/sign-in-child';
import { appServices } from '../shared/composition-root';
import { clientAddress } from '../shared/http/client-address';
import { clientLabelOf } from '../shared/sessions/client-label';

/** POST /api/v1/auth/child-session (public): a child's username and PIN or password for a session. */
const route = 'v1/auth/child-session';
const services = appServices();
const { config } = services;

// Lengths are bounded only loosely here: a too-long or malformed value is simply a wrong credential,
// and must get the same answer as one (the rules for new secrets live in the child-account endpoints).
const body = lazySchema(() =>
  z.union([
    z.strictObject({ username: z.string().check(z.maxLength(256)), pin: z.string().check(z.maxLength(256)) }),
    z.strictObject({ username: z.string().check(z.maxLength(256)), password: z.string().check(z.maxLength(1024)) }),
  ]),
);

export const createChildSession = services.endpoint({ route, body }, async ({ body, request }) => {
  const result = await signInChild(
    {
      username: body.username,
      secret: 'pin' in body ? body.pin : body.password,
      clientAddress: clientAddress(request.headers.get('x-forwarded-for'), config.trustProxyHops),
      clientLabel: clientLabelOf(request.headers.get('user-agent')),
    },
    services.childAuth,
  );
  if (!result.ok) return result.problem;
  return { status: 200, jsonBody: sessionResponseBody(result.user, result.started, result.child.scopes) };
});

app.http('auth-child-session-create', { route, methods: ['POST'], authLevel: 'anonymous', handler: createChildSession });
