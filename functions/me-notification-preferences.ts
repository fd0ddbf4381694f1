import { defineEndpoint } from '../shared/composition/app-functions';
import { changePreferences, getPreferences } from '../shared/notifications';
import { PREFERENCES, preferencesExample } from '../shared/openapi/api-schemas';
import { preferencesPatchBody } from '../shared/users/notification-preferences';

/** The caller's notification channels, `{ push, sms, email }`. */
const route = 'v1/me/notification-preferences';

/** GET (signed in): the preferences. */
export const readNotificationPreferences = defineEndpoint({
  name: 'me-notification-preferences-get',
  method: 'get',
  route,
  operationId: 'getNotificationPreferences',
  tag: 'me',
  summary: "The caller's notification channels",
  access: 'signed in',
  success: { status: 200, description: 'The preferences.', body: PREFERENCES, example: preferencesExample },
  problems: [],
  handler: async ({ caller }, services) => ({ status: 200, jsonBody: await getPreferences(caller.user, services.corePorts) }),
});

/** PATCH (signed in) with any of the three booleans: the preferences after the change, 200. */
export const patchNotificationPreferences = defineEndpoint({
  name: 'me-notification-preferences-patch',
  method: 'patch',
  route,
  operationId: 'patchNotificationPreferences',
  tag: 'me',
  summary: 'Change notification channels',
  access: 'signed in',
  body: { name: 'NotificationPreferencesPatch', schema: preferencesPatchBody, example: { sms: false } },
  success: { status: 200, description: 'The preferences after the change.', body: PREFERENCES, example: preferencesExample },
  problems: [],
  handler: async ({ caller, body }, services) => {
    const preferences = await changePreferences(caller.user, body, services.corePorts);
    if ('kind' in preferences) return preferences;
    return { status: 200, jsonBody: preferences };
  },
});
