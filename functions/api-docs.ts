import type { AppServices } from '../shared/composition-root';
import { defineEndpoint } from '../shared/composition/app-functions';
import type { Config } from '../shared/config';
import type { HttpEndpoint } from '../shared/http/endpoint-definition';
import type { HttpSuccess } from '../shared/http/http-pipeline';
import { noSuchEndpoint } from '../shared/http/unmatched-request';
import { apiReferencePageHeaders, apiReferencePageHtml, apiReferenceViewerScript } from '../shared/openapi/api-reference-page';

/** Outside production always; in production only with `API_DOCS_IN_PRODUCTION=true` (`apiDocsPage`). */
const servedWhen = (config: Config): boolean => config.apiDocsPage;

/**
 * The API reference page (`GET /api/docs`, public) and its viewer script: Redoc showing
 * `GET /api/openapi.json`. Served outside production, and in production only with
 * `API_DOCS_IN_PRODUCTION=true`; otherwise neither is registered and both answer the 404 of an
 * unknown path, to every method. Left out of the OpenAPI document: they present the document
 * rather than belong to the API a client calls, they answer HTML and JavaScript, and production
 * usually answers them 404.
 */
function apiReferenceEndpoint(definition: {
  name: string;
  route: string;
  operationId: string;
  summary: string;
  answers: string;
  answer: (services: AppServices) => Promise<HttpSuccess>;
}): HttpEndpoint<AppServices> {
  const { answer, answers, ...names } = definition;
  return defineEndpoint({
    ...names,
    method: 'get',
    tag: 'meta',
    access: 'public',
    success: { status: 200, description: answers },
    problems: ['not_found'],
    servedWhen,
    // Not registered when switched off; a caller given other services (a test) still gets the 404.
    handler: async (_scope, services) => (servedWhen(services.config) ? answer(services) : noSuchEndpoint()),
  });
}

/** GET /api/docs: the page, with a new nonce for every answer (the viewer's injected styles carry it). */
export const apiDocsPage = apiReferenceEndpoint({
  name: 'api-docs',
  route: 'docs',
  operationId: 'apiReferencePage',
  summary: 'The API reference page',
  answers: 'The page (HTML).',
  answer: async (services) => {
    const nonce = Buffer.from(services.random.bytes(18)).toString('base64');
    return { status: 200, headers: apiReferencePageHeaders(nonce), textBody: apiReferencePageHtml(nonce) };
  },
});

/** GET /api/docs/viewer.js: Redoc's standalone bundle, served by the app itself, read at its first request. */
export const apiDocsViewer = apiReferenceEndpoint({
  name: 'api-docs-viewer',
  route: 'docs/viewer.js',
  operationId: 'apiReferenceViewer',
  summary: "The API reference page's viewer script",
  answers: "Redoc's standalone bundle (JavaScript).",
  answer: async () => ({ status: 200, headers: { 'Content-Type': 'text/javascript; charset=utf-8' }, textBody: await apiReferenceViewerScript() }),
});
