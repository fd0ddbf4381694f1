/**
 * Every HTTP route the app registers (without the `api/` prefix) and its methods. The catch-all
 * function reads it to tell a wrong method on a known path (405 with `Allow`) from an unknown path
 * (404): both hosts hand such a request to the catch-all, since a route whose methods refuse the
 * request's method does not match it. `test/startup/route-catalogue.test.ts` loads the built app
 * and fails when this list and the registrations differ, so a new endpoint cannot be left out.
 */
export const ROUTE_CATALOGUE: readonly { route: string; methods: readonly string[] }[] = [
  { route: 'health', methods: ['GET', 'HEAD'] },
  { route: 'ready', methods: ['GET', 'HEAD'] },
  { route: 'openapi.json', methods: ['GET'] },
  { route: 'v1/auth/session', methods: ['POST', 'DELETE'] },
  { route: 'v1/auth/child-session', methods: ['POST'] },
  { route: 'v1/me', methods: ['GET', 'DELETE'] },
  { route: 'v1/me/export', methods: ['GET'] },
  { route: 'v1/me/sessions', methods: ['GET', 'DELETE'] },
  { route: 'v1/me/sessions/{id}', methods: ['DELETE'] },
  { route: 'v1/me/push-tokens', methods: ['PUT', 'DELETE'] },
  { route: 'v1/me/notification-preferences', methods: ['GET', 'PATCH'] },
  { route: 'v1/children', methods: ['GET', 'POST'] },
  { route: 'v1/children/{id}', methods: ['PATCH', 'DELETE'] },
  { route: 'v1/children/{id}/activity', methods: ['GET'] },
  { route: 'v1/children/{id}/consents', methods: ['GET'] },
  { route: 'v1/children/{id}/sessions', methods: ['GET', 'DELETE'] },
  { route: 'v1/children/{id}/sessions/{sessionId}', methods: ['DELETE'] },
  { route: 'v1/users', methods: ['GET'] },
  { route: 'v1/users/{id}', methods: ['DELETE'] },
  { route: 'v1/users/{id}/approve', methods: ['POST'] },
  { route: 'v1/users/{id}/role', methods: ['PATCH'] },
  { route: 'v1/announcements', methods: ['GET', 'POST'] },
  { route: 'v1/announcements/{id}', methods: ['GET', 'PATCH'] },
  { route: 'v1/announcements/{id}/submit', methods: ['POST'] },
  { route: 'v1/announcements/{id}/approve', methods: ['POST'] },
  { route: 'v1/announcements/{id}/reject', methods: ['POST'] },
  { route: 'v1/announcements/{id}/publish', methods: ['POST'] },
];

/**
 * The methods the route matching `path` (below the `api/` prefix) accepts, in catalogue order, or
 * undefined when no route matches. Literal segments compare case-insensitively and a `{parameter}`
 * takes any one non-empty segment, as the hosts' route templates do; a trailing slash is ignored.
 */
export function allowedMethods(path: string): readonly string[] | undefined {
  const segments = path.replace(/^\/+/, '').replace(/\/$/, '').split('/');
  for (const { route, methods } of ROUTE_CATALOGUE) {
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
