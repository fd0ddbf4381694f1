import { app } from '@azure/functions';
import { profileOf } from '../shared/auth/profile';
import { appServices } from '../shared/composition-root';

/** GET /api/v1/me (authenticated): the caller's profile and role. */
const route = 'v1/me';
const services = appServices();

export const me = services.endpoint({ route, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const db = await services.database.get();
  return { status: 200, jsonBody: await profileOf(db, auth.user, auth.session) };
});

app.http('me', { route, methods: ['GET'], authLevel: 'anonymous', handler: me });
