import { app, type HttpHandler } from '@azure/functions';
import { appServices } from '../../shared/composition-root';
import { defineEndpoint, httpHandlerOf } from '../../shared/composition/app-functions';

/**
 * Bench only, never deployed: `GET /api/bench/empty` answers `{}` through the same pipeline as
 * every app endpoint (request id, log context, one `request handled` line), so the bench can
 * tell the cost of the host and pipeline apart from the cost of an endpoint's own work. It lives
 * outside `functions/`, so package.json `main` never loads it; only the bench's app root does.
 */
export const benchEmpty = defineEndpoint({
  name: 'bench-empty',
  method: 'get',
  route: 'bench/empty',
  operationId: 'benchEmpty',
  tag: 'probes',
  summary: 'An empty answer through the pipeline',
  access: 'public',
  success: { status: 200, description: '`{}`.' },
  problems: [],
  handler: async () => ({ status: 200, jsonBody: {} }),
});

let built: HttpHandler | undefined;
app.http(benchEmpty.name, {
  route: benchEmpty.route,
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: (request, context) => (built ??= httpHandlerOf(benchEmpty, appServices()))(request, context),
});
