import type { FunctionRegistration } from './functions-core-shim';
import { triggerOf } from './invocation';
import {
  comparePrecedence,
  matchRoute,
  parseRouteTemplate,
  pathSegments,
  RouteTemplateError,
  type RouteTemplate,
} from './route-template';

/** One HTTP-triggered function as the router sees it. */
export interface HttpRoute {
  registration: FunctionRegistration;
  template: RouteTemplate;
  /** Upper-case methods; undefined when the function accepts every method. */
  methods: ReadonlySet<string> | undefined;
}

export interface RouteMatch {
  route: HttpRoute;
  params: Record<string, string>;
}

export interface RouteProblem {
  functionName: string;
  problem: string;
}

/**
 * Builds the routes of every `httpTrigger` registration under the host.json route prefix, in the
 * order they are tried: ASP.NET precedence (literals before constrained parameters before
 * parameters before catch-alls), then template text, then function name so the order is stable.
 */
export function buildRouteTable(
  registrations: readonly FunctionRegistration[],
  routePrefix: string,
): { routes: HttpRoute[]; problems: RouteProblem[] } {
  const routes: HttpRoute[] = [];
  const problems: RouteProblem[] = [];
  for (const registration of registrations) {
    const trigger = triggerOf(registration.metadata);
    if (trigger?.type.toLowerCase() !== 'httptrigger') continue;
    const functionName = registration.metadata.name;
    const route = typeof trigger.route === 'string' && trigger.route !== '' ? trigger.route : functionName;
    const prefix = routePrefix.replace(/^\/+|\/+$/g, '');
    try {
      const template = parseRouteTemplate(prefix === '' ? route : `${prefix}/${route.replace(/^\/+/, '')}`);
      for (const segment of template.segments) {
        if (segment.kind === 'literal') continue;
        for (const constraint of segment.constraints.filter((candidate) => !candidate.known)) {
          problems.push({ functionName, problem: `unknown route constraint "${constraint.name}" is ignored` });
        }
      }
      routes.push({ registration, template, methods: methodSet(trigger.methods) });
    } catch (error) {
      if (!(error instanceof RouteTemplateError)) throw error;
      problems.push({ functionName, problem: error.message });
    }
  }
  routes.sort(
    (a, b) =>
      comparePrecedence(a.template, b.template) ||
      a.template.text.toLowerCase().localeCompare(b.template.text.toLowerCase()) ||
      a.registration.metadata.name.localeCompare(b.registration.metadata.name),
  );
  return { routes, problems };
}

function methodSet(methods: unknown): ReadonlySet<string> | undefined {
  if (!Array.isArray(methods) || methods.length === 0) return undefined;
  return new Set(methods.filter((method): method is string => typeof method === 'string').map((method) => method.toUpperCase()));
}

/**
 * The first route, in precedence order, whose template matches the path and whose methods allow
 * the method; undefined when none does (the host then answers 404).
 */
export function findRoute(routes: readonly HttpRoute[], method: string, pathname: string): RouteMatch | undefined {
  const segments = pathSegments(pathname);
  const upperMethod = method.toUpperCase();
  for (const route of routes) {
    if (route.methods && !route.methods.has(upperMethod)) continue;
    const params = matchRoute(route.template, segments);
    if (params) return { route, params };
  }
  return undefined;
}
