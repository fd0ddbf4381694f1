import { defineEndpoint } from '../shared/composition/app-functions';
import { healthSchema } from '../shared/health/check-readiness';

/** Liveness: answers without touching any dependency, so a slow database never restarts the container. */
export const health = defineEndpoint({
  name: 'health',
  method: 'get',
  route: 'health',
  head: true,
  operationId: 'health',
  tag: 'probes',
  summary: 'Liveness: the app answers',
  access: 'public',
  success: { status: 200, description: 'Alive.', body: { name: 'Health', schema: healthSchema }, example: { status: 'ok' } },
  problems: [],
  handler: async () => ({ status: 200, jsonBody: { status: 'ok' } }),
});
