/** A route the app registers (without the `api/` prefix) and the methods it accepts. */
export interface CataloguedRoute {
  route: string;
  methods: readonly string[];
}

/**
 * The methods the route matching `path` (below the `api/` prefix) accepts, or undefined when no
 * route matches. The catch-all reads it to tell a wrong method on a known path (405 with `Allow`)
 * from an unknown path (404): both hosts hand such a request to the catch-all, since a route whose
 * methods refuse the request's method does not match it. The routes are the endpoints' own
 * definitions (`routeMethods`), so a new endpoint cannot be left out. Literal segments compare
 * case-insensitively and a `{parameter}` takes any one non-empty segment, as the hosts' route
 * templates do; a trailing slash is ignored.
 */
export function allowedMethods(routes: readonly CataloguedRoute[], path: string): readonly string[] | undefined {
  const segments = path.replace(/^\/+/, '').replace(/\/$/, '').split('/');
  for (const { route, methods } of routes) {
    const template = route.split('/');
    if (template.length !== segments.length) continue;
    const matches = template.every((part, index) => {
      const segment = segments[index] ?? '';
      return part.startsWith('{') ? segment !== '' : part.toLowerCase() === segment.toLowerCase();
    });
    if (matches) return methods;
  }
  return undefined;
}

/**
 * The `Allow` of a route (405 and `OPTIONS` answers): its methods, then `OPTIONS`, which every
 * known path answers. The OpenAPI document lists the same value for each path.
 */
export function allowHeader(methods: readonly string[]): string {
  return [...methods, 'OPTIONS'].join(', ');
}
