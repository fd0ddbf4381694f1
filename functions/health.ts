import { app } from '@azure/functions';
import { appServices } from '../shared/composition-root';

/** Liveness: answers without touching any dependency, so a slow database never restarts the container. */
const route = 'health';

export const health = appServices().endpoint({ route }, async () => ({ status: 200, jsonBody: { status: 'ok' } }));

app.http('health', { route, methods: ['GET', 'HEAD'], authLevel: 'anonymous', handler: health });
