import { app } from '@azure/functions';
import { signOut } from '../shared/auth/sign-out';
import { appServices } from '../shared/composition-root';

/** DELETE /api/v1/auth/session (authenticated): signs out and revokes the presented session. */
const route = 'v1/auth/session';
const services = appServices();

export const deleteSession = services.endpoint({ route, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  await signOut(auth.session, services.auth);
  return { status: 204 };
});

app.http('auth-session-delete', { route, methods: ['DELETE'], authLevel: 'anonymous', handler: deleteSession });
