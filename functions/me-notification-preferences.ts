import { app } from '@azure/functions';
import { appServices, endpoint } from '../shared/composition-root';
import { preferencesPatchBody } from '../shared/users/notification-preferences';
import { changePreferences, getPreferences } from '../shared/notifications/preferences/notification-settings';

/**
 * GET /api/v1/me/notification-preferences (authenticated): `{ push, sms, email }`.
 * PATCH with any of the three booleans: the preferences after the change, 200.
 */
const route = 'v1/me/notification-preferences';

export const readNotificationPreferences = endpoint({ route, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  return { status: 200, jsonBody: await getPreferences(auth.user, appServices().auth) };
});

export const patchNotificationPreferences = endpoint({ route, body: preferencesPatchBody, authenticated: true }, async (scope) => {
  const auth = scope.caller;
  const preferences = await changePreferences(auth.user, scope.body, appServices().auth);
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
