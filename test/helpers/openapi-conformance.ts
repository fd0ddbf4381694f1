/**
 * Checks an answer of the API against the OpenAPI document the code generates: the status must be
 * listed for the operation, and the body must match that response's schema for its content type.
 * The end-to-end suites run every answer through it (test/setup/validate-api-responses.ts), so the
 * document cannot drift from what the app answers. Built once per test file, on first use.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument, type JsonObject } from '../../shared/openapi/openapi-document';
import { API_ENDPOINTS } from '../../functions/index';

export interface ApiExchange {
  method: string;
  /** The URL path, query included or not (it is ignored). */
  path: string;
  status: number;
  contentType: string | null;
  bodyText: string;
}

const DOCUMENT_ID = 'https://community-platform.invalid/openapi.json';
const METHODS_WITHOUT_DOCUMENT = new Set(['OPTIONS']);

export interface ConformanceChecker {
  /** What is wrong with the exchange (empty when it conforms). */
  check(exchange: ApiExchange): string[];
  /** Validates `value` against the schema at `pointer` (a JSON Pointer into the document). */
  validateAt(pointer: string, value: unknown): string[];
  document: JsonObject;
}

let shared: ConformanceChecker | undefined;

/** The checker of the document generated from the code (built once). */
export function conformanceChecker(): ConformanceChecker {
  shared ??= createChecker(buildOpenApiDocument(API_ENDPOINTS));
  return shared;
}

/** A checker of `document`. */
export function createChecker(document: JsonObject): ConformanceChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const compiled = new Map<string, ValidateFunction>();
  const validateAt = (pointer: string, value: unknown): string[] => {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      compiled.set(pointer, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath || '(body)'} ${error.message ?? 'invalid'} (${error.schemaPath})`);
  };
  const paths = document.paths as Record<string, Record<string, JsonObject>>;
  const components = document.components as { responses: Record<string, JsonObject> };
  const templates = Object.keys(paths).map((template) => ({ template, segments: template.split('/') }));

  const matchPath = (path: string): string | undefined => {
    const segments = path.replace(/\/$/, '').split('/');
    const candidates = templates.filter(
      ({ segments: parts }) =>
        parts.length === segments.length &&
        parts.every((part, index) => (part.startsWith('{') ? (segments[index] ?? '') !== '' : part.toLowerCase() === segments[index]?.toLowerCase())),
    );
    // A literal segment wins over a parameter, as in the hosts' route tables.
    candidates.sort((a, b) => b.segments.filter((part) => !part.startsWith('{')).length - a.segments.filter((part) => !part.startsWith('{')).length);
    return candidates[0]?.template;
  };

  const checkBody = (label: string, pointer: string, response: JsonObject, exchange: ApiExchange, head: boolean): string[] => {
    const content = response.content as Record<string, unknown> | undefined;
    if (head || !content) {
      return exchange.bodyText === '' ? [] : [`${label}: the response has a body, the document lists none`];
    }
    const mediaType = (exchange.contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!(mediaType in content)) return [`${label}: content type "${mediaType}" is not listed (${Object.keys(content).join(', ')})`];
    let body: unknown;
    try {
      body = JSON.parse(exchange.bodyText);
    } catch {
      return [`${label}: the body is not JSON`];
    }
    const schemaPointer = `${pointer}/content/${escape(mediaType)}/schema`;
    return validateAt(schemaPointer, body).map((problem) => `${label}: ${problem}`);
  };

  const check = (exchange: ApiExchange): string[] => {
    const method = exchange.method.toUpperCase();
    if (METHODS_WITHOUT_DOCUMENT.has(method)) return [];
    const path = new URL(exchange.path, 'http://host').pathname;
    const label = `${method} ${path} → ${exchange.status}`;
    const template = matchPath(path);
    if (!template) {
      // Unknown paths answer the catch-all's 404 problem.
      if (exchange.status !== 404) return [`${label}: the path is not in the document`];
      return checkBody(label, '/components/responses/not_found', components.responses.not_found ?? {}, exchange, method === 'HEAD');
    }
    const pathItem = paths[template] ?? {};
    const operationKey = method.toLowerCase() in pathItem ? method.toLowerCase() : undefined;
    if (!operationKey) {
      // A method the path does not take: 405 with `Allow` (or the catch-all's 404).
      if (exchange.status !== 405 && exchange.status !== 404) return [`${label}: ${method} is not documented for ${template}`];
      return exchange.bodyText === '' || method === 'HEAD' ? [] : checkProblem(label, exchange);
    }
    const operation = pathItem[operationKey] ?? {};
    const responses = operation.responses as Record<string, JsonObject>;
    let response = responses[String(exchange.status)];
    let pointer = `/paths/${escape(template)}/${operationKey}/responses/${exchange.status}`;
    if (!response) return [`${label}: status ${exchange.status} is not listed for ${method} ${template} (${Object.keys(responses).join(', ')})`];
    if (typeof response.$ref === 'string') {
      pointer = response.$ref.slice(1);
      response = components.responses[pointer.split('/').pop() ?? ''] ?? {};
    }
    return checkBody(label, pointer, response, exchange, method === 'HEAD');
  };

  const checkProblem = (label: string, exchange: ApiExchange): string[] => {
    try {
      return validateAt('/components/schemas/Problem', JSON.parse(exchange.bodyText)).map((problem) => `${label}: ${problem}`);
    } catch {
      return [`${label}: the body is not JSON`];
    }
  };

  return { check, validateAt, document };
}

/** A JSON Pointer segment (RFC 6901). */
export function escape(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
