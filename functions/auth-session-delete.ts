import { app } from '@azure/functions';
import { signOut } from '../shared/auth/sign-out';
import { appServices, endpoint } from '../shared/composition-root';

/** DELETE /api/v1/auth/session (authenticated): signs out and revokes the presented session. */
const route = 'v1/auth/session';

export const deleteSession = endpoint({ route, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  await signOut(auth.session, appServices().auth);
  return { status: 204 };
});

app.http('auth-session-delete', { route, methods: ['DELETE'], authLevel: 'anonymous', handler: deleteSession });
