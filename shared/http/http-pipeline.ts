import { randomUUID } from 'node:crypto';
import type { HttpHandler, HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type { Validator } from '../validation/lazy-schema';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { isServerError } from '../errors/error-catalogue';
import { isProblem, problem, problemBody, type Problem } from '../errors/problem';
import type { Shutdown } from '../lifecycle/shutdown';
import { runWithLogContext, type LogContext } from '../logging/log-context';
import { errorFields, type Logger } from '../logging/logger';
import { HTTP_REQUEST_BUDGET_MS, runWithTimeBudget } from '../resilience/time-budget';
import type { Session } from '../sessions/session';
import type { Telemetry } from '../telemetry/telemetry';
import type { Section, User } from '../users/user';
import { corsHeaders } from './cors';
import { readJsonBody } from './read-json-body';
import { refuseRepeatedQueryKeys } from './read-query';
import { resolveTraceId } from '../logging/trace-context';

/** `extensions.http.routePrefix` of host.json: part of every endpoint label. */
export const ROUTE_PREFIX = 'api';

/** A successful answer; failures are returned as a `Problem`. */
export interface HttpSuccess {
  status: number;
  jsonBody?: unknown;
  /** A body that is not JSON (a page, a script), sent as is; `headers` give its `Content-Type`. */
  textBody?: string;
  headers?: Record<string, string>;
}

export type EndpointResult = HttpSuccess | Problem;

/** What a handler gets for one request. */
export interface RequestScope<TBody> {
  request: HttpRequest;
  context: InvocationContext;
  /** The validated body (undefined for endpoints without a body schema). */
  body: TBody;
  /** The request's logger: its lines carry `requestId`, `endpoint`, `traceId` and (once set) `userId`. */
  log: Logger;
  traceId: string;
  requestId: string;
  /** Marks the request as authenticated: every later line of the request carries this `userId`. */
  setUserId(userId: string): void;
}

export interface EndpointOptions<S extends Validator<unknown> | undefined, A extends boolean> {
  /** The route template as registered with `app.http` (without the `api/` prefix). */
  route: string;
  /** When given, the body is read (16 KiB limit), parsed and validated before the handler runs. */
  body?: S;
  /**
   * The endpoint needs a signed-in caller: the bearer session is checked before anything else (so
   * an anonymous request gets 401 `unauthenticated`, never a validation answer), and the handler
   * gets the caller as `scope.caller`.
   */
  authenticated?: A;
}

/** The signed-in user of an authenticated endpoint and the session they presented. */
export interface AuthenticatedCaller {
  user: User;
  session: Session;
  /** A child's sections, read together with the session (undefined for an adult). */
  scopes?: readonly Section[] | undefined;
}

export type Authentication = ({ ok: true } & AuthenticatedCaller) | { ok: false; problem: Problem };

export interface HttpPipelineDeps {
  logger: Logger;
  telemetry: Telemetry;
  /** Checks the `Authorization` header of authenticated endpoints (the session authenticator). */
  authenticate?: (authorization: string | null) => Promise<Authentication>;
  /** `CORS_ALLOWED_ORIGINS`: browser origins whose requests get `Access-Control-Allow-Origin`; empty: CORS off. */
  corsAllowedOrigins?: readonly string[];
  /**
   * The process's shutdown: each request runs `track`ed (the stop waits for it before closing the
   * database). One arriving after termination began is still served (the ingress keeps routing to a
   * terminating replica for a few seconds; `/api/ready` tells it to stop), unless the database is
   * closing or the deadline passed: then it gets 503 at once. One still running at the deadline is
   * answered 503 then.
   */
  shutdown?: Pick<Shutdown, 'closing' | 'deadline' | 'track'>;
}

type BodyOf<S> = S extends Validator<infer T> ? T : undefined;

/** What a handler gets: the request scope, and the caller for authenticated endpoints. */
export type EndpointScope<S, A> = RequestScope<BodyOf<S>> & (A extends true ? { caller: AuthenticatedCaller } : unknown);

/** Headers every answer carries: tokens and profiles must never be cached by an intermediary. */
const BASE_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' } as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Builds the one HTTP pipeline every HTTP function uses. The returned function wraps a handler
 * with: request id and trace id, a per-request logger, repeated query keys refused (400), body limit
 * + JSON parsing + zod validation,
 * problem+json answers from the error catalogue, and exactly one `request handled` line per request
 * (never a body). An exception from the handler becomes a 500 `internal_error` with the catalogue's
 * detail (503 `service_unavailable` when an adapter reports its dependency unreachable). Once the
 * shutdown closes the database or passes its deadline, a new request gets 503 `service_unavailable`
 * with `Retry-After` before any work; the requests in flight are waited for (`HttpPipelineDeps.shutdown`).
 */
export function createHttpPipeline(deps: HttpPipelineDeps) {
  return function inPipeline<S extends Validator<unknown> | undefined = undefined, A extends boolean = false>(
    options: EndpointOptions<S, A>,
    handler: (scope: EndpointScope<S, A>) => Promise<EndpointResult>,
  ): HttpHandler {
    return async (request, context) => {
      const started = performance.now();
      const requestId = UUID.test(context.invocationId) ? context.invocationId : randomUUID();
      const traceId = resolveTraceId(request.headers.get('traceparent'), context.traceContext?.traceParent);
      const endpointLabel = `${request.method} /${ROUTE_PREFIX}/${options.route}`;
      const logContext: LogContext = { traceId, userId: null, requestId, endpoint: endpointLabel };

      // Retries deep inside (a database deadlock, a failover) stop in time for a clear answer.
      return runWithLogContext(logContext, () => runWithTimeBudget(HTTP_REQUEST_BUDGET_MS, async () => {
        // requestId, endpoint, traceId and userId come from the log context, so shared code that logs
        // through the root logger stamps its lines with them too; bindings here would repeat the keys.
        const log = deps.logger;
        let result: EndpointResult;
        let thrown: unknown;
        try {
          const shutdown = deps.shutdown;
          if (shutdown && (shutdown.closing.aborted || shutdown.deadline.aborted)) {
            result = SHUTTING_DOWN;
          } else {
            const run = (): Promise<EndpointResult> =>
              runHandler(options, handler, deps, {
                request,
                context,
                log,
                traceId,
                requestId,
                setUserId: (userId) => {
                  logContext.userId = userId;
                },
              });
            result = shutdown ? await untilDeadline(shutdown.track(run), shutdown.deadline) : await run();
          }
        } catch (error) {
          thrown = error;
          result =
            error instanceof DependencyUnavailableError
              ? problem('service_unavailable', { cause: error })
              : problem('internal_error', { cause: error });
        }
        const response = toResponse(result, traceId, requestId, {
          head: request.method === 'HEAD',
          cors: corsHeaders(request.headers.get('origin'), deps.corsAllowedOrigins ?? []),
        });
        logRequestHandled(log, deps.telemetry, {
          endpoint: endpointLabel,
          statusCode: response.status ?? 200,
          durationMs: Math.round(performance.now() - started),
          result,
          thrown,
        });
        return response;
      }));
    };
  };
}

/** Wraps a handler in the pipeline (`createHttpPipeline`). */
export type HttpPipeline = ReturnType<typeof createHttpPipeline>;

/**
 * The answer to a request refused, unrun, because the process stops (and to `/api/ready` once the
 * shutdown began): safe to retry.
 */
export const SHUTTING_DOWN = problem('service_unavailable', {
  detail: 'This instance is shutting down; try again after the Retry-After seconds.',
  expected: true,
});

/** The answer to a request still running at the deadline: its handler may yet commit, so a blind retry may repeat it. */
const CUT_OFF = problem('service_unavailable', {
  detail:
    'This instance is shutting down and stopped waiting for the request: its outcome is unknown (it may still complete); check its effect before retrying.',
  expected: true,
});

/** Answers the shutdown gives: expected on every scale-in and deploy. */
const SHUTDOWN_ANSWERS: ReadonlySet<Problem> = new Set([SHUTTING_DOWN, CUT_OFF]);

/**
 * The handler's result, or 503 when the shutdown deadline passes first: the client gets an answer
 * while the instance can still send one. The handler keeps running (tracked, so the stop still
 * waits for it up to the drain point) and may still commit; its late result is dropped, so the
 * answer says the outcome is unknown.
 */
function untilDeadline(running: Promise<EndpointResult>, deadline: AbortSignal): Promise<EndpointResult> {
  if (deadline.aborted) return Promise.resolve(CUT_OFF);
  let onAbort: (() => void) | undefined;
  const cutOff = new Promise<EndpointResult>((resolve) => {
    onAbort = () => resolve(CUT_OFF);
    deadline.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([running, cutOff]).finally(() => {
    if (onAbort) deadline.removeEventListener('abort', onAbort);
  });
}

async function runHandler<S extends Validator<unknown> | undefined, A extends boolean>(
  options: EndpointOptions<S, A>,
  handler: (scope: EndpointScope<S, A>) => Promise<EndpointResult>,
  deps: HttpPipelineDeps,
  scope: Omit<RequestScope<BodyOf<S>>, 'body'>,
): Promise<EndpointResult> {
  let caller: AuthenticatedCaller | undefined;
  if (options.authenticated) {
    if (!deps.authenticate) throw new Error('an authenticated endpoint needs the pipeline built with `authenticate`');
    const authentication = await deps.authenticate(scope.request.headers.get('authorization'));
    if (!authentication.ok) return authentication.problem;
    caller = { user: authentication.user, session: authentication.session, scopes: authentication.scopes };
    scope.setUserId(caller.user.id);
  }
  const repeatedKey = refuseRepeatedQueryKeys(scope.request.url);
  if (repeatedKey) return repeatedKey;
  let body: BodyOf<S> = undefined as BodyOf<S>;
  if (options.body) {
    const read = await readJsonBody(scope.request, options.body);
    if (!read.ok) return read.problem;
    body = read.value as BodyOf<S>;
  }
  return handler({ ...scope, body, ...(caller ? { caller } : {}) } as EndpointScope<S, A>);
}

/**
 * The answer as the host sends it. A `HEAD` answer has the headers a `GET` would have and no
 * body (RFC 9110 §9.3.2), whichever host runs the app.
 */
function toResponse(
  result: EndpointResult,
  traceId: string,
  requestId: string,
  request: { head: boolean; cors: Record<string, string> },
): HttpResponseInit {
  const withBody = (response: HttpResponseInit & { body: string }): HttpResponseInit =>
    request.head ? { status: response.status, headers: response.headers } : response;
  if (isProblem(result)) {
    const body = problemBody(result, traceId);
    return withBody({
      status: body.status,
      headers: { ...BASE_HEADERS, ...request.cors, ...result.headers, 'Content-Type': 'application/problem+json', 'X-Request-Id': requestId },
      body: JSON.stringify(body),
    });
  }
  const headers: Record<string, string> = { ...BASE_HEADERS, ...request.cors, ...result.headers, 'X-Request-Id': requestId };
  if (result.textBody !== undefined) return withBody({ status: result.status, headers, body: result.textBody });
  if (result.jsonBody === undefined) return { status: result.status, headers };
  return withBody({
    status: result.status,
    headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8' },
    body: JSON.stringify(result.jsonBody),
  });
}

interface HandledRequest {
  endpoint: string;
  statusCode: number;
  durationMs: number;
  result: EndpointResult;
  thrown: unknown;
}

function logRequestHandled(log: Logger, telemetry: Telemetry, handled: HandledRequest): void {
  const fields = { statusCode: handled.statusCode, durationMs: handled.durationMs };
  const { result } = handled;
  if (!isProblem(result)) {
    log.info(fields, 'request handled');
    return;
  }
  if (SHUTDOWN_ANSWERS.has(result)) {
    // Expected on every scale-in and deploy: a warning, not an error line or an exception.
    log.warn({ ...fields, errorCode: result.code }, 'request handled');
    return;
  }
  if (!isServerError(result.code)) {
    log.info({ ...fields, errorCode: result.code }, 'request handled');
    return;
  }
  const failure = handled.thrown ?? result.cause;
  const stackFields = failure instanceof Error ? errorFields(failure) : { stack: result.stack ?? '', errorType: 'Problem' };
  log.error({ ...fields, errorCode: result.code, ...stackFields }, 'request handled');
  telemetry.trackException(failure ?? new Error(result.code), { errorCode: result.code, endpoint: handled.endpoint });
}
