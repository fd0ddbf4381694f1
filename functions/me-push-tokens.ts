import { defineEndpoint } from '../shared/composition/app-functions';
import { registerDevice, unregisterDevice } from '../shared/notifications';
import { PUSH_TOKEN } from '../shared/openapi/api-schemas';

/** The caller's devices' Expo push tokens. */
const route = 'v1/me/push-tokens';

/** PUT (signed in): registers the caller's device, 204. */
export const putPushToken = defineEndpoint({
  name: 'me-push-tokens-put',
  method: 'put',
  route,
  operationId: 'putPushToken',
  tag: 'me',
  summary: "Register a device's Expo push token",
  access: 'signed in',
  body: PUSH_TOKEN,
  success: { status: 204, description: 'Registered.' },
  problems: [],
  handler: async ({ caller, body }, services) => {
    const refused = await registerDevice(caller.user, body.token, services.corePorts);
    if (refused) return refused;
    return { status: 204 };
  },
});

/** DELETE (signed in) with the same body: removes it, 204. */
export const deletePushToken = defineEndpoint({
  name: 'me-push-tokens-delete',
  method: 'delete',
  route,
  operationId: 'deletePushToken',
  tag: 'me',
  summary: "Unregister a device's Expo push token",
  access: 'signed in',
  body: PUSH_TOKEN,
  success: { status: 204, description: 'Unregistered.' },
  problems: [],
  handler: async ({ caller, body }, services) => {
    await unregisterDevice(caller.user, body.token, services.corePorts);
    return { status: 204 };
  },
});
