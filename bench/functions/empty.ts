import { app } from '@azure/functions';
import { appServices } from '../../shared/composition-root';

/**
 * Bench only, never deployed: `GET /api/bench/empty` answers `{}` through the same pipeline as
 * every app endpoint (request id, log context, one `request handled` line), so the bench can
 * tell the cost of the host and pipeline apart from the cost of an endpoint's own work. It lives
 * outside `functions/`, so package.json `main` never loads it; only the bench's app root does.
 */
const route = 'bench/empty';

export const benchEmpty = appServices().endpoint({ route }, async () => ({ status: 200, jsonBody: {} }));

app.http('bench-empty', { route, methods: ['GET'], authLevel: 'anonymous', handler: benchEmpty });
