import * as z from 'zod/mini';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors/error-catalogue';
import { problemBodySchema } from '../errors/problem';
import { SECRET_RULE_SENTENCES } from '../family/credential-rules';
import { API_TAGS } from '../http/api-tags';
import { SETTINGS } from '../settings/setting-declarations';
import { apiPath, type HttpEndpoint, type NamedSchema } from '../http/endpoint-definition';
import { exclusiveBranches } from './exclusive-branches';
import { addPathAnswers, answerHeaders, headerComponents, parameterComponents, problemHeaderNames, sortedByStatus, TRACEPARENT_PARAMETER } from './path-answers';

/**
 * The OpenAPI 3.1 document of the API, generated from the endpoints' definitions (their zod
 * schemas, access and problem codes) and the error catalogue. Built on demand (`GET
 * /api/openapi.json` builds it once, on its first call), never at start: building every schema
 * costs tens of milliseconds a cold start does not need. `npm run openapi` writes it to
 * docs/openapi.json, and a test fails when that copy is stale.
 */

/** An endpoint as the document describes it (its handler plays no part). */
export type DocumentedEndpoint = Omit<HttpEndpoint<never>, 'handler' | 'kind' | 'name'>;

/** The problem+json schema, under its component name. */
export const PROBLEM: NamedSchema = { name: 'Problem', schema: problemBodySchema };

/**
 * The codes any endpoint may answer with: a repeated query key or a malformed request, a failure,
 * an unreachable dependency or an app shutting down (503). Whatever the route, the local host
 * refuses a body over 16 KiB (413), a header section over 32 KiB (431) and a request that does not
 * arrive within 10 s (408) before any function runs (devhost/http-host.ts).
 */
export function sharedProblemCodes(operation: Pick<DocumentedEndpoint, 'body' | 'access'>): ErrorCode[] {
  return [
    'invalid_request',
    'request_timeout',
    'payload_too_large',
    ...(operation.body ? (['unsupported_media_type'] as const) : []),
    'headers_too_large',
    ...(operation.access === 'public' ? [] : (['unauthenticated'] as const)),
    'internal_error',
    'service_unavailable',
  ];
}

export type JsonObject = Record<string, unknown>;

const SCHEMA_REF = (name: string) => `#/components/schemas/${name}`;
const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/**
 * Builds the document (plain JSON, deterministic: the same code gives the same bytes).
 * @param endpoints the endpoints in the order the document lists them.
 */
export function buildOpenApiDocument(endpoints: readonly DocumentedEndpoint[]): JsonObject {
  const responses: Record<string, JsonObject> = {};
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const operation of endpoints) {
    const pathItem = (paths[apiPath(operation)] ??= {});
    pathItem[operation.method] = operationObject(operation, responses);
    if (operation.head) pathItem.head = headOperation(operation, pathItem[operation.method] ?? {}, responses);
  }
  // OPTIONS is answered by the catch-all: public, no body, 403 for a refused CORS preflight.
  const optionsProblems = problemResponses({ access: 'public', problems: ['forbidden'] }, responses);
  addPathAnswers(paths, endpoints, optionsProblems, SCHEMA_REF(PROBLEM.name));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Community platform API',
      version: '1',
      description: [
        'Adults sign in with an identity provider (`POST /api/v1/auth/session`), children with username and PIN or password',
        '(`POST /api/v1/auth/child-session`); both answer a session token to send as `Authorization: Bearer <token>`.',
        'Every error is an RFC 9457 problem (`application/problem+json`) with a stable `code`; `invalid_request` and',
        '`weak_secret` carry `errors`, one entry per failing field: a JSON Pointer into the body, a code and what a valid value',
        'looks like (never the value sent). Every answer carries `X-Request-Id` and `Cache-Control: no-store`; a `traceparent`',
        'sent with a request continues the caller\'s trace. A wrong method on a known path answers 405 with `Allow`, `OPTIONS`',
        '204 with `Allow`; a path the document does not list answers 404 `not_found`.',
      ].join(' '),
      contact: { name: 'The community platform\'s backend team' },
      // Not open source: the SPDX form of a licence of one's own.
      license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
    },
    servers: SERVERS,
    tags: [...new Set(endpoints.map((operation) => operation.tag))].map((name) => ({ name, description: API_TAGS[name] })),
    paths,
    components: {
      schemas: componentSchemas(endpoints),
      responses: Object.fromEntries(Object.keys(responses).sort().map((name) => [name, responses[name]])),
      parameters: parameterComponents(),
      headers: headerComponents(),
      examples: problemExamples(),
      securitySchemes: securitySchemes(),
    },
  };
}

/**
 * The local host first (`npm start`), then any deployment: its origin is the `SERVICE_API_URL`
 * that `azd env get-values` prints (infra/README.md). The paths begin with `/api`.
 */
const LOCAL_HOST = `http://localhost:${SETTINGS.PORT.default}`;
const SERVERS = [
  { url: LOCAL_HOST, description: 'The local host (`npm start`; `PORT` moves it).' },
  {
    url: '{origin}',
    description: 'A deployment: set `origin` to its `SERVICE_API_URL` (`azd env get-values`), for example `https://ca-api-dev.<region>.azurecontainerapps.io`.',
    variables: { origin: { default: LOCAL_HOST, description: 'Scheme, host and port of the deployment, without a trailing slash.' } },
  },
];

/** The document as served and checked in: two-space JSON with a final newline. */
export function openApiJson(endpoints: readonly DocumentedEndpoint[]): string {
  return `${JSON.stringify(buildOpenApiDocument(endpoints), null, 2)}\n`;
}

function securitySchemes(): JsonObject {
  return {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'session token (<id>.<secret>)',
      description: 'The `token` of a sign-in answer. Adults\' sessions last 30 days (14 idle), children\'s 7 (2 idle).',
    },
  };
}

/** Every named request and response schema, with `$ref`s between them, as JSON Schema 2020-12. */
function componentSchemas(endpoints: readonly DocumentedEndpoint[]): JsonObject {
  const requests = new Map<string, z.core.$ZodType>();
  const responses = new Map<string, z.core.$ZodType>([[PROBLEM.name, built(PROBLEM)]]);
  for (const operation of endpoints) {
    if (operation.body) requests.set(operation.body.name, built(operation.body));
    if (operation.success.body) responses.set(operation.success.body.name, built(operation.success.body));
  }
  const schemas = { ...toJsonSchemas(requests, 'input'), ...toJsonSchemas(responses, 'output') };
  return Object.fromEntries(Object.keys(schemas).sort().map((name) => [name, schemas[name]]));
}

function built(named: NamedSchema): z.core.$ZodType {
  return typeof named.schema === 'function' ? named.schema() : named.schema.schema();
}

function toJsonSchemas(named: ReadonlyMap<string, z.core.$ZodType>, io: 'input' | 'output'): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of named) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    uri: SCHEMA_REF,
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      // zod spells a format out as a regular expression too; the format says it for every reader.
      if (typeof jsonSchema.format === 'string' && jsonSchema.pattern !== undefined) delete jsonSchema.pattern;
      exclusiveBranches(jsonSchema as JsonObject);
    },
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const { $schema: _dialect, $id: _id, ...rest } = schema as JsonObject;
      return [id, rest];
    }),
  );
}

function operationObject(operation: DocumentedEndpoint, sharedResponses: Record<string, JsonObject>): JsonObject {
  const parameters = [
    TRACEPARENT_PARAMETER,
    ...[...apiPath(operation).matchAll(/([^/]+)\/\{([^}]+)\}/g)].map(([, parent, name]) => pathParameter(name ?? '', parent === 'sessions')),
    ...(operation.query ?? []).map((parameter) => ({ in: 'query', required: false, ...parameter })),
  ];
  const who = operation.access === 'public' ? 'Public.' : `Who: ${operation.access} (\`Authorization: Bearer <session token>\`).`;
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: [who, operation.description].filter(Boolean).join(' '),
    security: operation.access === 'public' ? [] : [{ bearerAuth: [] }],
    parameters,
    ...(operation.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: SCHEMA_REF(operation.body.name) }, example: operation.body.example } },
          },
        }
      : {}),
    responses: sortedByStatus({ ...successResponse(operation), ...problemResponses(operation, sharedResponses) }),
  };
}

/** `HEAD` of a `GET`: the same statuses and headers, no content (RFC 9110 §9.3.2). */
function headOperation(operation: DocumentedEndpoint, get: JsonObject, shared: Record<string, JsonObject>): JsonObject {
  const responses = Object.fromEntries(
    Object.entries(get.responses as Record<string, JsonObject>).map(([status, { content: _content, ...response }]) => {
      if (typeof response.$ref !== 'string') return [status, response];
      // A shared problem response has content; HEAD's has its description and headers only.
      const { headers } = shared[response.$ref.split('/').pop() ?? ''] ?? {};
      return [status, { description: `As for GET (${status}), without the body.`, ...(headers ? { headers } : {}) }];
    }),
  );
  return { ...get, operationId: `${operation.operationId}Head`, summary: `${operation.summary} (headers only)`, responses };
}

/** A session's public id is 32 hex digits; every other id a UUID. */
function pathParameter(name: string, isSession: boolean): JsonObject {
  const schema = isSession ? { type: 'string', pattern: '^[0-9a-fA-F]{32}$' } : { type: 'string', format: 'uuid' };
  return { in: 'path', name, required: true, schema };
}

function successResponse(operation: DocumentedEndpoint): JsonObject {
  const { success } = operation;
  if (success.status === 204) return { '204': { description: success.description, headers: answerHeaders() } };
  const schema = success.body ? { $ref: SCHEMA_REF(success.body.name) } : { type: 'object' };
  return {
    [String(success.status)]: {
      description: success.description,
      headers: answerHeaders(),
      content: { 'application/json': { schema, ...(success.example === undefined ? {} : { example: success.example }) } },
    },
  };
}

/**
 * One response per status, its `code` limited to the codes this endpoint answers with at that
 * status; each distinct set of codes is one entry of `components.responses` the operations refer to.
 */
function problemResponses(operation: Pick<DocumentedEndpoint, 'access' | 'body' | 'problems'>, shared: Record<string, JsonObject>): JsonObject {
  const codes = [...new Set<ErrorCode>([...operation.problems, ...sharedProblemCodes(operation)])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const { status } = ERROR_CATALOGUE[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: JsonObject = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const statusCodes = (byStatus.get(status) ?? []).sort();
    const name = statusCodes.join('-or-');
    shared[name] ??= problemResponse(status, statusCodes);
    responses[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  return responses;
}

function problemResponse(status: number, codes: readonly ErrorCode[]): JsonObject {
  const schema = {
    allOf: [{ $ref: SCHEMA_REF(PROBLEM.name) }, { type: 'object', properties: { status: { const: status }, code: { enum: codes } } }],
  };
  const examples = Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }]));
  return {
    description: codes.map((code) => `\`${code}\`: ${ERROR_CATALOGUE[code].title}`).join('; '),
    headers: answerHeaders(problemHeaderNames(codes)),
    content: { [PROBLEM_MEDIA_TYPE]: { schema, examples } },
  };
}

const EXAMPLE_ERRORS: Partial<Record<ErrorCode, JsonObject>> = {
  invalid_request: {
    detail: 'Invalid body: /pin: Expected a string. /scopes: Required.',
    errors: [
      { pointer: '/pin', code: 'invalid_type', detail: 'Expected a string.' },
      { pointer: '/scopes', code: 'required', detail: 'Required.' },
    ],
  },
  weak_secret: {
    detail: SECRET_RULE_SENTENCES.pin,
    errors: [{ pointer: '/pin', code: 'sequence', detail: SECRET_RULE_SENTENCES.pin }],
  },
};

/** One example problem per catalogue code, which every response of that code refers to. */
function problemExamples(): JsonObject {
  const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
  return Object.fromEntries(codes.map((code) => [code, { summary: ERROR_CATALOGUE[code].title, value: problemExample(code) }]));
}

function problemExample(code: ErrorCode): JsonObject {
  const entry = ERROR_CATALOGUE[code];
  return {
    type: 'about:blank',
    title: entry.title,
    status: entry.status,
    code,
    detail: entry.detail,
    ...(EXAMPLE_ERRORS[code] ?? {}),
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  };
}
