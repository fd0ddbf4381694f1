import { app } from '@azure/functions';
import { endpoint } from '../shared/composition-root';

/** Liveness: answers without touching any dependency, so a slow database never restarts the container. */
const route = 'health';

export const health = endpoint({ route }, async () => ({ status: 200, jsonBody: { status: 'ok' } }));

app.http('health', { route, methods: ['GET', 'HEAD'], authLevel: 'anonymous', handler: health });
