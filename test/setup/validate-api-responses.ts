import { afterEach, expect } from 'vitest';
import { checkedAnswers, liveApiBaseUrls } from '../helpers/live-api-hosts';
import { conformanceChecker, type ApiExchange } from '../helpers/openapi-conformance';

/**
 * Every answer a test receives from a local host (through `fetch`: the API client and the tests'
 * own calls) is checked against the OpenAPI document: status listed for the operation, body
 * matching its schema, the headers it lists as required present and valid. A test that talks to no local host pays nothing.
 */
const pending: Promise<ApiExchange | undefined>[] = [];
const WRAPPED = Symbol.for('community-platform.api-conformance-fetch');
const state = globalThis as unknown as Record<symbol, boolean | undefined>;

if (!state[WRAPPED]) {
  state[WRAPPED] = true;
  const originalFetch = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await originalFetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    // The API's routes only: the host's own endpoints (`/runtime/webhooks/eventgrid`) are not the API.
    if ([...liveApiBaseUrls].some((base) => url.startsWith(`${base}/api/`))) {
      const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
      const { pathname, search } = new URL(url);
      pending.push(
        response
          .clone()
          .text()
          .then((bodyText) => ({
            method,
            path: pathname + search,
            status: response.status,
            contentType: response.headers.get('content-type'),
            bodyText,
            headers: Object.fromEntries(response.headers),
          }))
          .catch(() => undefined),
      );
    }
    return response;
  };
}

afterEach(async () => {
  if (pending.length === 0) return;
  const exchanges = (await Promise.all(pending.splice(0))).filter((exchange): exchange is ApiExchange => exchange !== undefined);
  // Built on the first answer to check: unit tests never pay for the document or its validators.
  const checker = conformanceChecker();
  const failures = exchanges.flatMap((exchange) => checker.check(exchange));
  checkedAnswers.count += exchanges.length;
  expect(failures, 'answers that break the OpenAPI document (docs/openapi.json; `npm run openapi` regenerates it)').toEqual([]);
});
