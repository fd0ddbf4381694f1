import { app } from '@azure/functions';
import { requireSession } from '../shared/auth/require-session';
import { appServices } from '../shared/composition-root';
import { registerDevice, unregisterDevice } from '../shared/notifications/notification-settings';
import { pushTokenBody } from '../shared/notifications/push-tokens';

/**
 * PUT /api/v1/me/push-tokens (authenticated): registers the caller's device, 204.
 * DELETE /api/v1/me/push-tokens with the same body: removes it, 204.
 */
const route = 'v1/me/push-tokens';
const services = appServices();

export const putPushToken = services.endpoint({ route, body: pushTokenBody }, async (scope) => {
  const auth = await requireSession(scope, services.auth);
  if (!auth.ok) return auth.problem;
  await registerDevice(auth.user, scope.body.token, services.auth);
  return { status: 204 };
});

export const deletePushToken = services.endpoint({ route, body: pushTokenBody }, async (scope) => {
  const auth = await requireSession(scope, services.auth);
  if (!auth.ok) return auth.problem;
  await unregisterDevice(auth.user, scope.body.token, services.auth);
  return { status: 204 };
});

app.http('me-push-tokens-put', { route, methods: ['PUT'], authLevel: 'anonymous', handler: putPushToken });
app.http('me-push-tokens-delete', { route, methods: ['DELETE'], authLevel: 'anonymous', handler: deletePushToken });
