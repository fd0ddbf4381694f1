import type * as z from 'zod/mini';
import type { Config } from '../config';
import type { ErrorCode } from '../errors/error-catalogue';
import type { ApiTag } from './api-tags';
import type { LazySchema } from '../validation/lazy-schema';
import type { EndpointResult, EndpointScope } from './http-pipeline';

/**
 * The one declaration of each function of the app. An HTTP endpoint's definition holds everything
 * said about it: the function name, method and route, who may call it, the request and answer
 * schemas, the problem codes it answers with, and the handler, which takes its services as a
 * parameter. The registration (`app.http`), the 405 answers' `Allow`, the OpenAPI operation and
 * the docs' endpoint table are all derived from it; a function file only declares it.
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Who may call: `public` needs no token; every other value needs `Authorization: Bearer <session token>`. */
export type Access = 'public' | 'signed in' | 'adult' | 'the parent' | 'author or admin' | 'admin';

export interface QueryParameter {
  name: string;
  description: string;
  /**
   * A plain JSON Schema of the value as read: what a string on the wire must spell (`integer`,
   * `boolean` as `true`/`false`, form style); the description says how the server parses it.
   */
  schema: Record<string, unknown>;
}

export interface NamedSchema {
  /** The name under `components.schemas`. */
  name: string;
  schema: LazySchema<z.core.$ZodType> | (() => z.core.$ZodType);
}

/** A request body: its schema validates the request before the handler runs, and documents it. */
export interface RequestBody<S extends LazySchema<z.core.$ZodType>> {
  name: string;
  schema: S;
  example: unknown;
}

export interface SuccessAnswer {
  status: 200 | 201 | 204;
  description: string;
  body?: NamedSchema;
  example?: unknown;
}

/** An endpoint of the API. `TServices` is what its handler is given (the app's services). */
export interface HttpEndpoint<TServices> {
  kind: 'http';
  /** The function name the host registers. */
  name: string;
  method: HttpMethod;
  /** The route template as registered (without the `api/` prefix), `{name}` for a path parameter. */
  route: string;
  /** `HEAD` answers as `GET` does, without the body (the probes). */
  head?: true;
  /** Anything but `public` checks the bearer session before anything else (401 `unauthenticated`). */
  access: Access;
  operationId: string;
  tag: ApiTag;
  summary: string;
  description?: string;
  query?: readonly QueryParameter[];
  body?: RequestBody<LazySchema<z.core.$ZodType>>;
  success: SuccessAnswer;
  /** Codes this endpoint answers with besides those every endpoint shares (`sharedProblemCodes`). */
  problems: readonly ErrorCode[];
  /**
   * For an endpoint a setting switches off: false leaves it unregistered, and the catch-all's 405
   * and `OPTIONS` answers leave its route out, so every method gets the 404 of an unknown path and
   * nothing tells a switched-off endpoint from none. Absent: always served.
   */
  servedWhen?: (config: Config) => boolean;
  /** Typed precisely where it is declared (`httpEndpoint`); here any endpoint's fits. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handler: (scope: EndpointScope<any, any>, services: TServices) => Promise<EndpointResult>;
}

/** What `httpEndpoint` takes: the definition, its handler typed by its body and its access. */
export type HttpEndpointInput<TServices, S extends LazySchema<z.core.$ZodType> | undefined, A extends Access> = Omit<
  HttpEndpoint<TServices>,
  'kind' | 'handler' | 'access' | 'body'
> & {
  access: A;
  body?: S extends LazySchema<z.core.$ZodType> ? RequestBody<S> : undefined;
  handler: (scope: EndpointScope<S, A extends 'public' ? false : true>, services: TServices) => Promise<EndpointResult>;
};

/**
 * Declarer of endpoints whose handlers take `TServices`: the body's type reaches the handler from
 * its schema, and the handler of an endpoint that is not public gets `scope.caller`.
 */
export function httpEndpoint<TServices>() {
  return <S extends LazySchema<z.core.$ZodType> | undefined = undefined, A extends Access = Access>(
    definition: HttpEndpointInput<TServices, S, A>,
  ): HttpEndpoint<TServices> => ({ kind: 'http', ...definition }) as unknown as HttpEndpoint<TServices>;
}

/** True when the endpoint needs a signed-in caller. */
export function isAuthenticated(endpoint: Pick<HttpEndpoint<unknown>, 'access'>): boolean {
  return endpoint.access !== 'public';
}

/** True when `endpoint` is served under `config` (`servedWhen`). */
export function isServed(endpoint: Pick<HttpEndpoint<unknown>, 'servedWhen'>, config: Config): boolean {
  return endpoint.servedWhen?.(config) ?? true;
}

/** The catch-all: every path and method no endpoint matches (404, 405 with `Allow`, `OPTIONS`). */
export interface CatchAllFunction<TServices> {
  kind: 'catch-all';
  name: string;
  handler: (scope: EndpointScope<undefined, false>, services: TServices) => Promise<EndpointResult>;
}

/** `/api/{route}`: the path clients call and the OpenAPI document lists. */
export function apiPath(endpoint: Pick<HttpEndpoint<unknown>, 'route'>): string {
  return `/api/${endpoint.route}`;
}

/** The order `Allow` lists methods in. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The methods of each route (`HEAD` where a `GET` answers it), routes in the endpoints' order. */
export function routeMethods(endpoints: readonly Pick<HttpEndpoint<unknown>, 'route' | 'method' | 'head'>[]): { route: string; methods: string[] }[] {
  const byRoute = new Map<string, string[]>();
  for (const endpoint of endpoints) {
    const methods = byRoute.get(endpoint.route) ?? [];
    methods.push(endpoint.method.toUpperCase(), ...(endpoint.head ? ['HEAD'] : []));
    byRoute.set(endpoint.route, methods);
  }
  return [...byRoute].map(([route, methods]) => ({
    route,
    methods: methods.sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b)),
  }));
}
