import type { AppServices } from '../shared/composition-root';
import { oncePerServices } from '../shared/composition/app-functions';
import { isServed, routeMethods, type CatchAllFunction, type HttpEndpoint } from '../shared/http/endpoint-definition';
import { answerUnmatched } from '../shared/http/unmatched-request';

/**
 * The lowest-priority route: anything no other function matches gets a problem+json 404 (and its
 * `request handled` line) instead of the host's empty answer. A known path whose functions refuse
 * the method reaches it too (a route's methods are part of its match on both hosts): that gets 405
 * with `Allow`, `OPTIONS` and CORS preflights their answers (`shared/http/unmatched-request.ts`),
 * from the routes and methods of the endpoints of `endpoints()` its services' settings serve (an
 * endpoint a setting switches off answers 404 to every method, as an unknown path). The logged endpoint is the template, never the
 * submitted path, which could carry anything.
 */
export function notFoundFunction(endpoints: () => readonly HttpEndpoint<AppServices>[]): CatchAllFunction<AppServices> {
  const routesOf = oncePerServices((services) => routeMethods(endpoints().filter((endpoint) => isServed(endpoint, services.config))));
  return {
    kind: 'catch-all',
    name: 'not-found',
    handler: async ({ request }, services) => answerUnmatched(request, services.config.corsAllowedOrigins, routesOf(services)),
  };
}
