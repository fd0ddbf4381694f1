import { ERROR_CATALOGUE } from '../errors/error-catalogue';
import { routeMethods, type HttpEndpoint } from '../http/endpoint-definition';
import { allowHeader } from '../http/route-catalogue';

/**
 * What the document says about every answer beyond an operation's own: the headers each answer
 * carries (`X-Request-Id`; `Retry-After` on 429 and 503; the bearer challenge on 401), the
 * `traceparent` every operation accepts, and per path the 405 and `OPTIONS` answers of the
 * catch-all (shared/http/unmatched-request.ts) with the path's `Allow`, derived from the same
 * definitions as the registration (`routeMethods`).
 */

type JsonObject = Record<string, unknown>;

const HEADER_REF = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** `components.headers`: the response headers several answers share. */
export function headerComponents(): JsonObject {
  return {
    'Retry-After': {
      description: 'Seconds to wait before trying again (a whole number).',
      required: true,
      schema: { type: 'integer', minimum: 0 },
    },
    // Only `unauthenticated` carries it; a 401 of a sign-in (`invalid_token`, `invalid_credentials`) does not.
    'WWW-Authenticate': { description: 'The bearer challenge (RFC 6750), on `unauthenticated` answers.', schema: { type: 'string' } },
    'X-Request-Id': {
      description: 'The id of this request in the API\'s logs: quote it (with the problem\'s `traceId`) when reporting a problem.',
      required: true,
      schema: { type: 'string', format: 'uuid' },
    },
  };
}

/** `components.parameters`: the request header every operation accepts. */
export function parameterComponents(): JsonObject {
  return {
    traceparent: {
      in: 'header',
      name: 'traceparent',
      required: false,
      description:
        'W3C Trace Context (`version-traceid-parentid-flags`): the API continues the caller\'s trace, so a client\'s span or crash report links to the API\'s logs and traces; a problem\'s `traceId` is its trace id. A malformed value is ignored and a new trace begins.',
      schema: { type: 'string', maxLength: 55, example: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    },
  };
}

/** The `traceparent` parameter, as an operation refers to it. */
export const TRACEPARENT_PARAMETER = { $ref: '#/components/parameters/traceparent' };

/** The headers of an answer: `X-Request-Id`, then those its codes carry. */
export function answerHeaders(extra: readonly string[] = []): JsonObject {
  return Object.fromEntries(['X-Request-Id', ...extra].sort().map((name) => [name, HEADER_REF(name)]));
}

/** Each code that carries `Retry-After` (shared/errors/problem.ts sets it; the throttles set their wait). */
const RETRY_AFTER_CODES: ReadonlySet<string> = new Set(['too_many_attempts', 'service_unavailable', 'idp_unavailable']);

/** The headers an answer with one of these problem codes (of one status) carries beyond `X-Request-Id`. */
export function problemHeaderNames(codes: readonly string[]): string[] {
  return [
    ...(codes.every((code) => RETRY_AFTER_CODES.has(code)) ? ['Retry-After'] : []),
    ...(codes.includes('unauthenticated') ? ['WWW-Authenticate'] : []),
  ];
}

const allowHeaderObject = (allow: string): JsonObject => ({
  description: 'The methods this path takes.',
  required: true,
  schema: { type: 'string', const: allow },
});

/**
 * 405 `method_not_allowed`, listed on every operation of a path: OpenAPI has no place for the
 * methods a path lacks, and a client generated from the document meets this answer there.
 */
function methodNotAllowedResponse(allow: string, problemSchemaRef: string): JsonObject {
  return {
    description: `\`method_not_allowed\`: a method this path does not take (\`Allow: ${allow}\`).`,
    headers: { Allow: allowHeaderObject(allow), ...answerHeaders() },
    content: {
      'application/problem+json': {
        schema: { allOf: [{ $ref: problemSchemaRef }, { type: 'object', properties: { status: { const: 405 }, code: { const: 'method_not_allowed' } } }] },
        examples: { method_not_allowed: { $ref: '#/components/examples/method_not_allowed' } },
      },
    },
  };
}

const operationIdOf = (path: string) =>
  `${path
    .split('/')
    .filter((segment) => segment !== '' && segment !== 'api' && segment !== 'v1')
    .map((segment) => segment.replace(/[{}.]/g, ' '))
    .join(' ')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Options`.replace(/^./, (first) => first.toLowerCase());

/**
 * Adds to each path of `paths` its `OPTIONS` operation (204 with `Allow`; a CORS preflight from
 * an origin not in `CORS_ALLOWED_ORIGINS` 403) and the 405 answer to each of its operations.
 * @param problemResponses the problem answers of an operation that takes no body and no token.
 */
export function addPathAnswers(
  paths: Record<string, Record<string, JsonObject>>,
  endpoints: readonly Pick<HttpEndpoint<unknown>, 'route' | 'method' | 'head' | 'tag'>[],
  problemResponses: JsonObject,
  problemSchemaRef: string,
): void {
  for (const { route, methods } of routeMethods(endpoints)) {
    const pathItem = paths[`/api/${route}`];
    if (!pathItem) continue;
    const allow = allowHeader(methods);
    for (const operation of Object.values(pathItem)) {
      const responses = operation.responses as JsonObject;
      operation.responses = sortedByStatus({ ...responses, '405': methodNotAllowedResponse(allow, problemSchemaRef) });
    }
    const tag = endpoints.find((endpoint) => endpoint.route === route)?.tag;
    // The path's own parameters, as its operations declare them.
    const first = Object.values(pathItem)[0] ?? {};
    const pathParameters = ((first.parameters ?? []) as JsonObject[]).filter((parameter) => parameter.in === 'path');
    pathItem.options = {
      operationId: operationIdOf(`/api/${route}`),
      tags: tag ? [tag] : [],
      summary: 'The methods this path takes',
      description: `Public. Answers 204 with \`Allow: ${allow}\`. A CORS preflight (with \`Origin\` and \`Access-Control-Request-Method\`) from an origin of \`CORS_ALLOWED_ORIGINS\` gets the \`Access-Control-Allow-*\` headers too; from any other origin 403 \`forbidden\` (${ERROR_CATALOGUE.forbidden.title}).`,
      security: [],
      parameters: [TRACEPARENT_PARAMETER, ...pathParameters],
      responses: sortedByStatus({
        '204': { description: 'The methods of this path, in `Allow`.', headers: { Allow: allowHeaderObject(allow), ...answerHeaders() } },
        ...problemResponses,
      }),
    };
  }
}

/** Responses in the order of their status. */
export function sortedByStatus(responses: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}
