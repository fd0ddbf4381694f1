import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { ApiProblem } from './api-problem';
import type { paths } from './schema';

/** What a value the app supplies may be: given at once, or found asynchronously (secure storage). */
type Supplied<T> = T | Promise<T>;

export interface ApiClientOptions {
  /** The API's origin, e.g. `http://localhost:7071` or a deployment's `SERVICE_API_URL` (no trailing slash). */
  baseUrl: string;
  /**
   * The session token to send as `Authorization: Bearer <token>`, asked for before each request
   * (nothing is sent when it gives `null` or `undefined`). The app keeps the token where it keeps
   * secrets (SecureStore, the Keychain); the client never stores it.
   */
  getToken?: () => Supplied<string | null | undefined>;
  /**
   * The W3C `traceparent` of the app's current span, asked for before each request and sent when
   * there is one, so that the app's trace (or crash report) and the API's logs share one trace id.
   */
  getTraceparent?: () => Supplied<string | null | undefined>;
  /** The fetch to use (the platform's by default: React Native's, a browser's, Node's). */
  fetch?: (request: Request) => Promise<Response>;
}

/** The typed client: `GET`, `POST`, `PATCH`, `PUT`, `DELETE`, `HEAD`, `OPTIONS` by path, as openapi-fetch types them. */
export type ApiClient = Client<paths, 'application/json'>;

/**
 * A client of the API. It adds the bearer token and the `traceparent` the app gives it, and
 * nothing else: in particular it never retries. A sign-in is a POST the server counts against
 * its throttles (each failure brings 429 closer), so repeating one on the app's behalf would
 * spend the user's attempts; any request is sent exactly once, and a 429 or 503 comes back as an
 * `ApiProblem` with `retryAfter` for the app to wait on if it chooses.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const client = createClient<paths, 'application/json'>({
    baseUrl: options.baseUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const headers: Middleware = {
    async onRequest({ request }) {
      const token = await options.getToken?.();
      // A request that names its own Authorization (signing out another session, say) keeps it.
      if (token && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${token}`);
      const traceparent = await options.getTraceparent?.();
      if (traceparent) request.headers.set('traceparent', traceparent);
      return request;
    },
  };
  client.use(headers);
  return client;
}

/** What each method of the client resolves to. */
interface CallResult<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful answer, or an `ApiProblem` thrown for any other one:
 * `const me = await unwrap(api.GET('/api/v1/me'))`. A 204's data is `undefined`.
 */
export async function unwrap<D>(pending: Promise<CallResult<D>>): Promise<D> {
  const { data, error, response } = await pending;
  if (!response.ok) throw new ApiProblem(response, error);
  return data as D;
}
