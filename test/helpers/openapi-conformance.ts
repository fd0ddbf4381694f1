/**
 * Checks an answer of the API against the OpenAPI document the code generates: the status must be
 * listed for the operation (405 on any method a path lacks, `OPTIONS` as its own operation), the
 * body must match that response's schema for its content type, and every header the response
 * lists as required must be there with a value its schema accepts (`X-Request-Id` on every answer,
 * `Allow`, `Retry-After`).
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
  /** The answer's headers, names in lower case; without them the headers are not checked. */
  headers?: Readonly<Record<string, string>>;
}

const DOCUMENT_ID = 'https://community-platform.invalid/openapi.json';

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
  const components = document.components as { responses: Record<string, JsonObject>; headers: Record<string, JsonObject> };
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

  const checkHeaders = (label: string, pointer: string, response: JsonObject, exchange: ApiExchange): string[] => {
    if (!exchange.headers) return [];
    const failures: string[] = [];
    for (const [name, declared] of Object.entries((response.headers ?? {}) as Record<string, JsonObject>)) {
      let header = declared;
      let headerPointer = `${pointer}/headers/${escape(name)}`;
      if (typeof declared.$ref === 'string') {
        headerPointer = declared.$ref.slice(1);
        header = components.headers[headerPointer.split('/').pop() ?? ''] ?? {};
      }
      const value = exchange.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required === true) failures.push(`${label}: the required header ${name} is missing`);
        continue;
      }
      const schema = header.schema as JsonObject | undefined;
      // Header values are strings on the wire; an integer header is checked as the number it spells.
      const typed = schema?.type === 'integer' && /^\d+$/.test(value) ? Number(value) : value;
      failures.push(...validateAt(`${headerPointer}/schema`, typed).map((problem) => `${label}: header ${name}: ${problem}`));
    }
    return failures;
  };

  const checkBody = (label: string, pointer: string, response: JsonObject, exchange: ApiExchange, head: boolean): string[] => [
    ...checkHeaders(label, pointer, response, exchange),
    ...checkContent(label, pointer, response, exchange, head),
  ];

  const checkContent = (label: string, pointer: string, response: JsonObject, exchange: ApiExchange, head: boolean): string[] => {
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
    const path = new URL(exchange.path, 'http://host').pathname;
    const label = `${method} ${path} → ${exchange.status}`;
    const template = matchPath(path);
    if (!template) {
      // Unknown paths answer the catch-all's 404 problem.
      if (exchange.status !== 404) return [`${label}: the path is not in the document`];
      return checkBody(label, '/components/responses/not_found', components.responses.not_found ?? {}, exchange, method === 'HEAD');
    }
    const pathItem = paths[template] ?? {};
    // A method the path does not take answers the 405 every operation of the path lists.
    const operationKey = method.toLowerCase() in pathItem ? method.toLowerCase() : exchange.status === 405 ? Object.keys(pathItem)[0] : undefined;
    if (!operationKey) return [`${label}: ${method} is not documented for ${template}`];
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


  return { check, validateAt, document };
}

/** A JSON Pointer segment (RFC 6901). */
export function escape(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
