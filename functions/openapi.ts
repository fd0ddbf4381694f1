import type { AppServices } from '../shared/composition-root';
import { defineEndpoint } from '../shared/composition/app-functions';
import type { HttpEndpoint } from '../shared/http/endpoint-definition';
import { buildOpenApiDocument, type JsonObject } from '../shared/openapi/openapi-document';

/**
 * GET /api/openapi.json (public): the OpenAPI 3.1 document of the API (docs/openapi.json is the
 * same), built from the definitions of `endpoints()`: the app's, this one among them.
 */
export function openApiEndpoint(endpoints: () => readonly HttpEndpoint<AppServices>[]): HttpEndpoint<AppServices> {
  // Built on the first call, then kept: building every schema at start would cost each cold start.
  let document: JsonObject | undefined;
  return defineEndpoint({
    name: 'openapi',
    method: 'get',
    route: 'openapi.json',
    operationId: 'openApiDocument',
    tag: 'meta',
    summary: 'This document',
    access: 'public',
    success: { status: 200, description: 'The OpenAPI 3.1 document.' },
    problems: [],
    handler: async () => ({ status: 200, jsonBody: (document ??= buildOpenApiDocument(endpoints())) }),
  });
}
