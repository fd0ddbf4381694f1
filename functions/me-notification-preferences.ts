import { app } from '@azure/functions';
import { appServices } from '../shared/composition-root';
import { preferencesPatchBody } from '../shared/notifications/preferences/notification-preferences';
import { changePreferences, getPreferences } from '../shared/notifications/preferences/notification-settings';

/**
 * GET /api/v1/me/notification-preferences (authenticated): `{ push, sms, email }`.
 * PATCH with any of the three booleans: the preferences after the change, 200.
 */
const route = 'v1/me/notification-preferences';
const services = appServices();

export const readNotificationPreferences = services.endpoint({ route, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  return { status: 200, jsonBody: await getPreferences(auth.user, services.auth) };
});

export const patchNotificationPreferences = services.endpoint({ route, body: preferencesPatchBody, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const preferences = await changePreferences(auth.user, scope.body, services.auth);
  if ('kind' in preferences) return preferences;
  return { status: 200, jsonBody: preferences };
});

app.http('me-notification-preferences-get', { route, methods: ['GET'], authLevel: 'anonymous', handler: readNotificationPreferences });
app.http('me-notification-preferences-patch', {
  route,
  methods: ['PATCH'],
  authLevel: 'anonymous',
  handler: patchNotificationPreferences,
});
