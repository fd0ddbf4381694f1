import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HTTP_ENDPOINTS } from '../../functions/index';
import { routeMethods } from '../../shared/http/endpoint-definition';
import { allowedMethods } from '../../shared/http/route-catalogue';

const ROUTE_CATALOGUE = routeMethods(HTTP_ENDPOINTS);
import { ROOT } from './worker-load';

/**
 * The catch-all tells 405 from 404 by the endpoints' routes (`routeMethods`): they must be exactly
 * the HTTP routes and methods the built app registers (read here by loading the bundle as the
 * worker does).
 */
function registeredRoutes(): { route: string; methods: string[] }[] {
  const script = `
    const path = require('node:path');
    const root = ${JSON.stringify(ROOT)};
    const { installFunctionsCore } = require(path.join(root, 'dist/devhost/functions-core-shim.js'));
    const { entryPointFiles } = require(path.join(root, 'dist/devhost/load-app.js'));
    const { triggerOf } = require(path.join(root, 'dist/devhost/invocation.js'));
    const core = installFunctionsCore(() => undefined);
    for (const file of entryPointFiles(root)) require(file);
    core.closeRegistration();
    const routes = core.registrations()
      .map((registration) => triggerOf(registration.metadata))
      .filter((trigger) => trigger && String(trigger.type).toLowerCase() === 'httptrigger')
      .map((trigger) => ({ route: trigger.route, methods: (trigger.methods || []).map((method) => String(method).toUpperCase()) }));
    process.stderr.write('ROUTES ' + JSON.stringify(routes) + '\\n');
    process.exit(0);`;
  const result = spawnSync(process.execPath, ['-e', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', APP_ENV: 'test' },
    encoding: 'utf8',
  });
  const match = /^ROUTES (.*)$/m.exec(result.stderr);
  if (!match?.[1]) throw new Error(`loading the app failed (exit ${result.status}): ${result.stderr}`);
  return JSON.parse(match[1]) as { route: string; methods: string[] }[];
}

describe('the route catalogue', () => {
  it('lists every registered route with its methods, and nothing else', () => {
    const byRoute = new Map<string, Set<string>>();
    for (const { route, methods } of registeredRoutes()) {
      if (route === '{*path}') continue;
      const set = byRoute.get(route) ?? new Set<string>();
      for (const method of methods) set.add(method);
      byRoute.set(route, set);
    }
    const registered = [...byRoute].map(([route, methods]) => `${route} ${[...methods].sort().join(',')}`).sort();
    const catalogued = ROUTE_CATALOGUE.map(({ route, methods }) => `${route} ${[...methods].sort().join(',')}`).sort();
    expect(registered.length).toBeGreaterThan(20);
    expect(catalogued).toEqual(registered);
  });

  it('matches paths as the hosts do: literals in any case, a parameter per segment, a trailing slash ignored', () => {
    expect(allowedMethods(ROUTE_CATALOGUE, 'v1/Children/abc/SESSIONS/')).toEqual(['GET', 'DELETE']);
    expect(allowedMethods(ROUTE_CATALOGUE, 'health')).toEqual(['GET', 'HEAD']);
    expect(allowedMethods(ROUTE_CATALOGUE, 'v1/children//sessions')).toBeUndefined();
    expect(allowedMethods(ROUTE_CATALOGUE, 'v1/nope')).toBeUndefined();
  });
});
