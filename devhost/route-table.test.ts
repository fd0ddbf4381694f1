import { describe, expect, it } from 'vitest';
import type { FunctionRegistration } from './functions-core-shim';
import { buildRouteTable, findRoute } from './route-table';

/** A registration shaped like `@azure/functions` sends it for `app.http(name, { route, methods })`. */
function http(name: string, route: string | undefined, methods: string[] = ['GET', 'POST']): FunctionRegistration {
  return {
    metadata: {
      name,
      bindings: {
        httpTrigger1a2b: { type: 'httpTrigger', direction: 'in', authLevel: 'anonymous', methods, route, name: 'httpTrigger1a2b' },
        $return: { type: 'http', direction: 'out', name: '$return' },
      },
    },
    handler: () => undefined,
  };
}

const ALL = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const registrations: FunctionRegistration[] = [
  http('not-found', '{*path}', ALL),
  http('child', 'v1/children/{id:guid}', ['GET', 'PATCH', 'DELETE']),
  http('children', 'v1/children', ['GET', 'POST']),
  http('health', 'health', ['GET']),
  http('echo', 'v1/echo/{word}', ['GET']),
  http('echo-number', 'v1/echo/{word:int}', ['GET']),
  http('Hello', undefined, ['GET']),
  { metadata: { name: 'tick', bindings: { timer: { type: 'timerTrigger', direction: 'in', schedule: '0 * * * * *' } } }, handler: () => undefined },
];
const { routes, problems } = buildRouteTable(registrations, 'api');
const routedTo = (method: string, path: string) => findRoute(routes, method, path)?.route.registration.metadata.name;

describe('buildRouteTable + findRoute', () => {
  it('serves only HTTP triggers, under the route prefix, most specific first', () => {
    expect(routes.map((route) => route.template.text)).toEqual([
      'api/health',
      'api/Hello',
      'api/v1/children',
      'api/v1/children/{id:guid}',
      'api/v1/echo/{word:int}',
      'api/v1/echo/{word}',
      'api/{*path}',
    ]);
    expect(problems).toEqual([]);
  });

  it('routes literals before parameters and constrained parameters before plain ones', () => {
    expect(routedTo('GET', '/api/health')).toBe('health');
    expect(routedTo('GET', '/api/v1/echo/12')).toBe('echo-number');
    expect(routedTo('GET', '/api/v1/echo/twelve')).toBe('echo');
    expect(findRoute(routes, 'GET', '/api/v1/echo/twelve')?.params).toEqual({ word: 'twelve' });
  });

  it('uses the function name as the route when none is given', () => {
    expect(routedTo('GET', '/api/hello')).toBe('Hello');
  });

  it('gives the catch-all only what nothing else takes', () => {
    expect(routedTo('GET', '/api/nothing/here')).toBe('not-found');
    expect(routedTo('GET', '/api/v1/children/not-a-guid')).toBe('not-found');
    expect(routedTo('GET', '/api/v1/children/0f8fad5b-d9cb-469f-a165-70867728950e')).toBe('child');
    expect(routedTo('GET', '/api')).toBe('not-found');
  });

  it('filters by method: a wrong method falls to the catch-all, or to nothing when it refuses too', () => {
    expect(routedTo('post', '/api/health')).toBe('not-found');
    expect(routedTo('DELETE', '/api/v1/children')).toBe('not-found');
    expect(routedTo('TRACE', '/api/health')).toBeUndefined();
    expect(routedTo('GET', '/elsewhere')).toBeUndefined();
  });

  it('reports templates it cannot serve and unknown constraints, and still serves the rest', () => {
    const table = buildRouteTable([http('bad', 'files/{name}.{ext}'), http('odd', 'odd/{x:sparkly}'), http('ok', 'ok')], '');
    expect(table.routes.map((route) => route.template.text)).toEqual(['ok', 'odd/{x:sparkly}']);
    expect(table.problems.map((problem) => problem.functionName)).toEqual(['bad', 'odd']);
    expect(findRoute(table.routes, 'POST', '/ok')?.route.registration.metadata.name).toBe('ok');
  });
});
