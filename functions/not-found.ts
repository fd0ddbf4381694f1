import { app } from '@azure/functions';
import { appServices } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';

/**
 * The lowest-priority route: anything no other function matches gets a problem+json 404 (and its
 * `request handled` line) instead of the host's empty answer. The logged endpoint is the template,
 * never the submitted path, which could carry anything.
 */
const route = '{*path}';

export const notFound = appServices().endpoint({ route }, async () =>
  problem('not_found', { detail: 'No such endpoint.' }),
);

app.http('not-found', {
  route,
  methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
  authLevel: 'anonymous',
  handler: notFound,
});
