import { app } from '@azure/functions';
import { appServices, endpoint } from '../shared/composition-root';
import { registerDevice, unregisterDevice } from '../shared/notifications/preferences/notification-settings';
import { pushTokenBody } from '../shared/users/push-tokens';

/**
 * PUT /api/v1/me/push-tokens (authenticated): registers the caller's device, 204.
 * DELETE /api/v1/me/push-tokens with the same body: removes it, 204.
 */
const route = 'v1/me/push-tokens';

export const putPushToken = endpoint({ route, body: pushTokenBody, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const refused = await registerDevice(auth.user, scope.body.token, appServices().auth);
  if (refused) return refused;
  return { status: 204 };
});

export const deletePushToken = endpoint({ route, body: pushTokenBody, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  await unregisterDevice(auth.user, scope.body.token, appServices().auth);
  return { status: 204 };
});

app.http('me-push-tokens-put', { route, methods: ['PUT'], authLevel: 'anonymous', handler: putPushToken });
app.http('me-push-tokens-delete', { route, methods: ['DELETE'], authLevel: 'anonymous', handler: deletePushToken });
