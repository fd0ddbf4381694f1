import { app } from '@azure/functions';
import { endpoint } from '../shared/composition-root';
import { buildOpenApiDocument, type JsonObject } from '../shared/openapi/openapi-document';

/** GET /api/openapi.json (public): the OpenAPI 3.1 document of the API (docs/openapi.json is the same). */
const route = 'openapi.json';

// Built on the first call, then kept: building every schema at start would cost each cold start.
let document: JsonObject | undefined;

export const openApiDocument = endpoint({ route }, async () => ({
  status: 200,
  jsonBody: (document ??= buildOpenApiDocument()),
}));

app.http('openapi', { route, methods: ['GET'], authLevel: 'anonymous', handler: openApiDocument });
