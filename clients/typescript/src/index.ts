/**
 * The community platform API's typed client: types generated from the API's OpenAPI document
 * (src/schema.ts), a thin layer over the platform's fetch (openapi-fetch), problem+json answers as
 * `ApiProblem`. It uses nothing but `fetch`, `Request`, `Response` and `Headers`, so React Native,
 * browsers and Node 18+ can run it.
 */
export { ApiProblem, retryAfterSeconds, type FieldError, type ProblemBody, type ProblemCode } from './api-problem';
export { createApiClient, unwrap, type ApiClient, type ApiClientOptions } from './client';
export type { components, operations, paths } from './schema';
