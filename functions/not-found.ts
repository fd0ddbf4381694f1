import { app } from '@azure/functions';
import { appConfig, endpoint } from '../shared/composition-root';
import { answerUnmatched } from '../shared/http/unmatched-request';

/**
 * The lowest-priority route: anything no other function matches gets a problem+json 404 (and its
 * `request handled` line) instead of the host's empty answer. A known path whose functions refuse
 * the method reaches it too (a route's methods are part of its match on both hosts): that gets 405
 * with `Allow`, `OPTIONS` and CORS preflights their answers (`shared/http/unmatched-request.ts`).
 * The logged endpoint is the template, never the submitted path, which could carry anything.
 */
const route = '{*path}';

export const notFound = endpoint({ route }, async ({ request }) =>
  answerUnmatched(request, appConfig().corsAllowedOrigins),
);

app.http('not-found', {
  route,
  methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
  authLevel: 'anonymous',
  handler: notFound,
});
