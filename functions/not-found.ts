import type { AppServices } from '../shared/composition-root';
import { routeMethods, type CatchAllFunction, type HttpEndpoint } from '../shared/http/endpoint-definition';
import type { CataloguedRoute } from '../shared/http/route-catalogue';
import { answerUnmatched } from '../shared/http/unmatched-request';

/**
 * The lowest-priority route: anything no other function matches gets a problem+json 404 (and its
 * `request handled` line) instead of the host's empty answer. A known path whose functions refuse
 * the method reaches it too (a route's methods are part of its match on both hosts): that gets 405
 * with `Allow`, `OPTIONS` and CORS preflights their answers (`shared/http/unmatched-request.ts`),
 * from the routes and methods of `endpoints()`. The logged endpoint is the template, never the
 * submitted path, which could carry anything.
 */
export function notFoundFunction(endpoints: () => readonly HttpEndpoint<AppServices>[]): CatchAllFunction<AppServices> {
  let routes: CataloguedRoute[] | undefined;
  return {
    kind: 'catch-all',
    name: 'not-found',
    handler: async ({ request }, services) =>
      answerUnmatched(request, services.config.corsAllowedOrigins, (routes ??= routeMethods(endpoints()))),
  };
}
