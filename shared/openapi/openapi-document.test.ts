import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_ENDPOINTS } from '../../functions/index';
import { apiPath, routeMethods } from '../http/endpoint-definition';
import { conformanceChecker, escape } from '../../test/helpers/openapi-conformance';
import { endpointTable, TABLE_BEGIN, TABLE_END, withEndpointTable } from './endpoint-table';
import { openApiJson, type JsonObject } from './openapi-document';

const CHECKED_IN = path.resolve(__dirname, '../../docs/openapi.json');
const API_PAGE = path.resolve(__dirname, '../../docs/api.md');
const API_OPERATIONS = API_ENDPOINTS.map((endpoint) => ({ ...endpoint, path: apiPath(endpoint) }));

describe('the OpenAPI document', () => {
  const { document, validateAt, check } = conformanceChecker();

  it('is a valid OpenAPI 3.1 document', async () => {
    // A maintained validator of the OpenAPI 3.1 schema (an ES module, hence the dynamic import).
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('is checked in as docs/openapi.json, as the code generates it (`npm run openapi` after a change)', () => {
    expect(readFileSync(CHECKED_IN, 'utf8') === openApiJson(API_ENDPOINTS), 'docs/openapi.json is stale: run `npm run openapi`').toBe(true);
  });

  it("has its endpoint table checked in between docs/api.md's two marker lines, as the code generates it", () => {
    const page = readFileSync(API_PAGE, 'utf8');
    expect(page === withEndpointTable(page, endpointTable(API_ENDPOINTS)), 'the table of docs/api.md is stale: run `npm run openapi`').toBe(true);
    const table = page.slice(page.indexOf(TABLE_BEGIN), page.indexOf(TABLE_END));
    for (const endpoint of API_ENDPOINTS) expect(table).toContain(`${endpoint.method.toUpperCase()}${endpoint.head ? ', HEAD' : ''} ${apiPath(endpoint)}\``);
  });

  it('rewrites only the text between the marker lines', () => {
    const page = `# Title\n\nProse before.\n${TABLE_BEGIN}\nold table\n${TABLE_END}\nProse after.\n`;
    expect(withEndpointTable(page, 'new table')).toBe(`# Title\n\nProse before.\n${TABLE_BEGIN}\nnew table\n${TABLE_END}\nProse after.\n`);
    expect(() => withEndpointTable('# No markers\n', 'new table')).toThrow(/BEGIN generated endpoints/);
  });

  it('describes every route the app registers, with its methods', () => {
    const registered = routeMethods(API_ENDPOINTS).flatMap(({ route, methods }) => methods.map((method) => `${method} /api/${route}`)).sort();
    const documented = API_OPERATIONS.flatMap((operation) => [
      `${operation.method.toUpperCase()} ${operation.path}`,
      ...(operation.head ? [`HEAD ${operation.path}`] : []),
    ]).sort();
    expect(documented).toEqual(registered);
  });

  it('lists the bearer scheme on every endpoint but the public ones', () => {
    const paths = document.paths as Record<string, Record<string, JsonObject>>;
    for (const operation of API_OPERATIONS) {
      const security = paths[operation.path]?.[operation.method]?.security;
      expect(security, `${operation.method} ${operation.path}`).toEqual(operation.access === 'public' ? [] : [{ bearerAuth: [] }]);
      if (operation.access !== 'public') expect(Object.keys(paths[operation.path]?.[operation.method]?.responses as object)).toContain('401');
    }
  });

  it('has examples that match their own schemas', () => {
    const paths = document.paths as Record<string, Record<string, JsonObject>>;
    let checked = 0;
    for (const operation of API_OPERATIONS) {
      const base = `/paths/${escape(operation.path)}/${operation.method}`;
      if (operation.body) {
        expect(validateAt(`${base}/requestBody/content/application~1json/schema`, operation.body.example), `${operation.operationId} request`).toEqual([]);
        const schema = operation.body.schema.schema();
        expect(schema['~standard'].validate(operation.body.example), `${operation.operationId} request (zod)`).toMatchObject({ value: operation.body.example });
        checked += 1;
      }
      if (operation.success.example !== undefined) {
        const pointer = `${base}/responses/${operation.success.status}/content/application~1json/schema`;
        expect(validateAt(pointer, operation.success.example), `${operation.operationId} answer`).toEqual([]);
        checked += 1;
      }
      expect(paths[operation.path]?.[operation.method]).toBeDefined();
    }
    const examples = (document.components as { examples: Record<string, { value: unknown }> }).examples;
    for (const [code, example] of Object.entries(examples)) {
      expect(validateAt('/components/schemas/Problem', example.value), code).toEqual([]);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('refuses answers that break it: an unlisted status, a wrong body, an undocumented path', () => {
    const problem = (status: number, code: string) => JSON.stringify({ type: 'about:blank', title: 'x', status, code, detail: 'd', traceId: 't' });
    const exchange = { method: 'GET', path: '/api/v1/me', contentType: 'application/problem+json' };
    expect(check({ ...exchange, status: 401, bodyText: problem(401, 'unauthenticated') })).toEqual([]);
    // Every problem body has all six members: one without `detail` breaks the document.
    expect(check({ ...exchange, status: 401, bodyText: JSON.stringify({ type: 'about:blank', title: 'x', status: 401, code: 'unauthenticated', traceId: 't' }) })).not.toEqual([]);
    expect(check({ ...exchange, status: 409, bodyText: problem(409, 'username_taken') })[0]).toMatch(/status 409 is not listed/);
    expect(check({ ...exchange, status: 403, bodyText: problem(403, 'forbidden') })[0]).toMatch(/status 403 is not listed/);
    expect(check({ ...exchange, status: 401, bodyText: problem(401, 'invalid_token') })).not.toEqual([]);
    expect(check({ ...exchange, status: 200, contentType: 'application/json', bodyText: '{"id":"nope"}' })).not.toEqual([]);
    expect(check({ method: 'GET', path: '/api/v1/nowhere', status: 200, contentType: 'application/json', bodyText: '{}' })[0]).toMatch(/not in the document/);
    expect(check({ method: 'GET', path: '/api/v1/nowhere', status: 404, contentType: 'application/problem+json', bodyText: problem(404, 'not_found') })).toEqual([]);
    expect(check({ method: 'DELETE', path: '/api/v1/me/sessions/0123456789abcdef0123456789abcdef?x=1', status: 204, contentType: null, bodyText: '' })).toEqual([]);
  });

  it('checks the headers an answer lists: X-Request-Id on every one, Allow on 405 and OPTIONS, Retry-After on 429', () => {
    const requestId = '0b7f6c0e-3f5a-4c1e-9d3b-2a4e5f6a7b8c';
    const problem = (status: number, code: string) => JSON.stringify({ type: 'about:blank', title: 'x', status, code, detail: 'd', traceId: 't' });
    const me = { method: 'GET', path: '/api/v1/me', status: 401, contentType: 'application/problem+json', bodyText: problem(401, 'unauthenticated') };
    const challenge = { 'www-authenticate': 'Bearer' };
    expect(check({ ...me, headers: { 'x-request-id': requestId, ...challenge } })).toEqual([]);
    expect(check({ ...me, headers: challenge })[0]).toMatch(/required header X-Request-Id is missing/);
    expect(check({ ...me, headers: { 'x-request-id': 'not-a-uuid', ...challenge } })[0]).toMatch(/header X-Request-Id/);

    const wrongMethod = { method: 'PUT', path: '/api/health', status: 405, contentType: 'application/problem+json', bodyText: problem(405, 'method_not_allowed') };
    expect(check({ ...wrongMethod, headers: { 'x-request-id': requestId, allow: 'GET, HEAD, OPTIONS' } })).toEqual([]);
    expect(check({ ...wrongMethod, headers: { 'x-request-id': requestId, allow: 'GET, OPTIONS' } })[0]).toMatch(/header Allow/);
    expect(check({ ...wrongMethod, headers: { 'x-request-id': requestId } })[0]).toMatch(/required header Allow is missing/);
    expect(check({ ...wrongMethod, status: 404, bodyText: problem(404, 'not_found') })[0]).toMatch(/not documented/);

    const options = { method: 'OPTIONS', path: '/api/v1/me', status: 204, contentType: null, bodyText: '' };
    expect(check({ ...options, headers: { 'x-request-id': requestId, allow: 'GET, DELETE, OPTIONS' } })).toEqual([]);
    expect(check({ ...options, headers: { 'x-request-id': requestId, allow: 'GET, OPTIONS' } })).not.toEqual([]);

    const throttled = { method: 'POST', path: '/api/v1/auth/child-session', status: 429, contentType: 'application/problem+json', bodyText: problem(429, 'too_many_attempts') };
    expect(check({ ...throttled, headers: { 'x-request-id': requestId, 'retry-after': '60' } })).toEqual([]);
    expect(check({ ...throttled, headers: { 'x-request-id': requestId } })[0]).toMatch(/required header Retry-After is missing/);
    expect(check({ ...throttled, headers: { 'x-request-id': requestId, 'retry-after': 'soon' } })[0]).toMatch(/header Retry-After/);
  });

  it('lists 405 with the path\'s Allow on every operation, and OPTIONS on every path, from the definitions', () => {
    const paths = document.paths as Record<string, Record<string, { responses: Record<string, { headers?: Record<string, { schema: { const?: string } }> }> }>>;
    for (const { route, methods } of routeMethods(API_ENDPOINTS)) {
      const pathItem = paths[`/api/${route}`] ?? {};
      const allow = [...methods, 'OPTIONS'].join(', ');
      expect(Object.keys(pathItem).sort()).toEqual([...methods, 'OPTIONS'].map((method) => method.toLowerCase()).sort());
      for (const [method, operation] of Object.entries(pathItem)) {
        const answer = operation.responses[method === 'options' ? '204' : '405'];
        expect(answer?.headers?.Allow?.schema.const, `${method} /api/${route}`).toBe(allow);
      }
    }
  });

  it('makes the pin and password branches exclusive, and types the query flags as booleans', () => {
    const schemas = (document.components as { schemas: Record<string, { oneOf?: { properties: Record<string, unknown> }[] }> }).schemas;
    for (const name of ['ChildSessionRequest', 'CreateChildRequest']) {
      const [pinBranch, passwordBranch] = schemas[name]?.oneOf ?? [];
      expect(pinBranch?.properties.password, name).toBe(false);
      expect(passwordBranch?.properties.pin, name).toBe(false);
    }
    const exclusive = validateAt('/components/schemas/ChildSessionRequest', { username: 'sam_k', pin: '408215', password: 'x' });
    expect(exclusive).not.toEqual([]);
    expect(validateAt('/components/schemas/ChildSessionRequest', { username: 'sam_k', pin: '408215' })).toEqual([]);
    const parameters = (document.paths as Record<string, Record<string, { parameters: { name?: string; schema?: { type: string } }[] }>>);
    expect(parameters['/api/v1/children/{id}']?.delete?.parameters.find((parameter) => parameter.name === 'erase')?.schema).toEqual({ type: 'boolean', default: false });
    expect(parameters['/api/v1/me/sessions']?.delete?.parameters.find((parameter) => parameter.name === 'includeCurrent')?.schema?.type).toBe('boolean');
  });

  it('describes every tag, names its contact and licence, and lists the local server and a deployment', () => {
    const tags = document.tags as { name: string; description?: string }[];
    expect(tags.map((tag) => tag.name).sort()).toEqual([...new Set(API_ENDPOINTS.map((endpoint) => endpoint.tag))].sort());
    for (const tag of tags) expect(tag.description, tag.name).toMatch(/\w{3,}/);
    expect(document.info).toMatchObject({ contact: { name: expect.any(String) }, license: { name: expect.any(String) } });
    expect(document.servers).toEqual([
      expect.objectContaining({ url: 'http://localhost:7071' }),
      expect.objectContaining({ url: '{origin}', variables: { origin: expect.objectContaining({ default: 'http://localhost:7071' }) } }),
    ]);
  });
});
