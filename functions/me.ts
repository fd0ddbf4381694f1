import { app } from '@azure/functions';
import { profileOf } from '../shared/auth/profile';
import { endpoint } from '../shared/composition-root';

/** GET /api/v1/me (authenticated): the caller's profile and role, from what the session check loaded. */
const route = 'v1/me';

export const me = endpoint({ route, authenticated: true }, async ({ caller }) => ({
  status: 200,
  jsonBody: profileOf(caller),
}));

app.http('me', { route, methods: ['GET'], authLevel: 'anonymous', handler: me });
