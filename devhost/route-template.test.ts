import { describe, expect, it } from 'vitest';
import { comparePrecedence, matchRoute, parseRouteTemplate, pathSegments, precedenceDigits, RouteTemplateError } from './route-template';

const match = (template: string, path: string) => matchRoute(parseRouteTemplate(template), pathSegments(path));

describe('matchRoute', () => {
  it('matches literal segments case-insensitively and ignores one trailing slash', () => {
    expect(match('api/health', '/api/health')).toEqual({});
    expect(match('api/health', '/API/Health/')).toEqual({});
    expect(match('api/health', '/api/healthz')).toBeUndefined();
    expect(match('api/health', '/api/health/extra')).toBeUndefined();
    expect(match('api/health', '/api')).toBeUndefined();
  });

  it('captures parameters, decoded, keeping an encoded slash encoded', () => {
    expect(match('api/v1/children/{id}', '/api/v1/children/abc%20d')).toEqual({ id: 'abc d' });
    expect(match('api/v1/children/{id}', '/api/v1/children/a%2Fb')).toEqual({ id: 'a%2Fb' });
    expect(match('api/v1/children/{id}', '/api/v1/children/')).toBeUndefined();
  });

  it('lets optional parameters and parameters with defaults be left out', () => {
    expect(match('api/items/{page?}', '/api/items')).toEqual({});
    expect(match('api/items/{page?}', '/api/items/2')).toEqual({ page: '2' });
    expect(match('api/items/{page=1}', '/api/items')).toEqual({ page: '1' });
    expect(match('api/items/{page}', '/api/items')).toBeUndefined();
  });

  it('applies int, guid and alpha constraints', () => {
    expect(match('api/n/{id:int}', '/api/n/42')).toEqual({ id: '42' });
    expect(match('api/n/{id:int}', '/api/n/-7')).toEqual({ id: '-7' });
    expect(match('api/n/{id:int}', '/api/n/4x')).toBeUndefined();
    expect(match('api/n/{id:int}', '/api/n/2147483648')).toBeUndefined();
    const guid = '0f8fad5b-d9cb-469f-a165-70867728950e';
    expect(match('api/g/{id:guid}', `/api/g/${guid}`)).toEqual({ id: guid });
    expect(match('api/g/{id:guid}', '/api/g/not-a-guid')).toBeUndefined();
    expect(match('api/a/{name:alpha}', '/api/a/Abc')).toEqual({ name: 'Abc' });
    expect(match('api/a/{name:alpha}', '/api/a/ab1')).toBeUndefined();
  });

  it('chains constraints with arguments', () => {
    expect(match('api/c/{code:alpha:length(3)}', '/api/c/abc')).toEqual({ code: 'abc' });
    expect(match('api/c/{code:alpha:length(3)}', '/api/c/abcd')).toBeUndefined();
    expect(match('api/r/{n:range(1,10)}', '/api/r/10')).toEqual({ n: '10' });
    expect(match('api/r/{n:range(1,10)}', '/api/r/11')).toBeUndefined();
    expect(match('api/x/{v:regex(^a\\d+$)}', '/api/x/a12')).toEqual({ v: 'a12' });
    expect(match('api/x/{v:regex(^a\\d+$)}', '/api/x/b12')).toBeUndefined();
  });

  it('accepts any value for an unknown constraint and marks it unknown', () => {
    const template = parseRouteTemplate('api/u/{id:sparkly}');
    const segment = template.segments[2];
    expect(segment?.kind === 'parameter' && segment.constraints[0]?.known).toBe(false);
    expect(matchRoute(template, pathSegments('/api/u/anything'))).toEqual({ id: 'anything' });
  });

  it('lets a catch-all take the rest of the path, including nothing', () => {
    expect(match('api/{*path}', '/api/a/b/c')).toEqual({ path: 'a/b/c' });
    expect(match('api/{**path}', '/api/a')).toEqual({ path: 'a' });
    expect(match('api/{*path}', '/api')).toEqual({});
    expect(match('api/{*path}', '/other')).toBeUndefined();
  });
});

describe('parseRouteTemplate', () => {
  it('rejects shapes the host cannot serve', () => {
    expect(() => parseRouteTemplate('api/{*rest}/more')).toThrow(RouteTemplateError);
    expect(() => parseRouteTemplate('api/file.{ext}')).toThrow(RouteTemplateError);
    expect(() => parseRouteTemplate('api/{}')).toThrow(RouteTemplateError);
    expect(() => parseRouteTemplate('api/{id:int(}')).toThrow(RouteTemplateError);
  });
});

describe('precedence', () => {
  it('orders literal < constrained parameter < parameter < constrained catch-all < catch-all per segment', () => {
    expect(precedenceDigits(parseRouteTemplate('api/a/{id:int}/{x}/{*rest}'))).toEqual([1, 1, 2, 3, 5]);
    expect(precedenceDigits(parseRouteTemplate('api/{*rest:alpha}'))).toEqual([1, 4]);
  });

  it('compares like the decimal ASP.NET computes', () => {
    const sorted = ['api/{*path}', 'api/{id}', 'api/{id:int}', 'api/health', 'api/health/{x}']
      .map((text) => parseRouteTemplate(text))
      .sort(comparePrecedence)
      .map((template) => template.text);
    expect(sorted).toEqual(['api/health', 'api/health/{x}', 'api/{id:int}', 'api/{id}', 'api/{*path}']);
  });
});
