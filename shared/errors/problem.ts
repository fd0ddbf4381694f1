import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import { ERROR_CATALOGUE, isServerError, type ErrorCode } from './error-catalogue';

/**
 * An expected failure, returned (not thrown) by handlers and shared code. It becomes an RFC 9457
 * problem+json answer; `cause` (a library error, say) goes to the log line only, never to the client.
 */
export interface Problem {
  readonly kind: 'problem';
  readonly code: ErrorCode;
  /** Safe for the client: never echoes submitted values. */
  readonly detail?: string;
  /** One entry per failing field of the request body (`invalid_request`, `weak_secret`). */
  readonly errors?: readonly FieldError[];
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
  /** Where a server-side problem came from, for the error line when there is no cause with a stack. */
  readonly stack?: string;
}

/**
 * A failing field of a request body: the `errors` extension member of a problem (RFC 9457 §3.2).
 * `pointer` is a JSON Pointer (RFC 6901) into the body as sent ("" for the body itself); `code`
 * says what is wrong; `detail` what a valid value looks like. Neither ever holds the submitted value.
 */
export type FieldError = NonNullable<ProblemBody['errors']>[number];

export interface ProblemOptions {
  detail?: string;
  errors?: readonly FieldError[];
  headers?: Record<string, string>;
  cause?: unknown;
  /**
   * An answer that is expected, not a failure to trace (the shutdown's 503s): no stack is recorded.
   * Such answers are made once, while the app loads, and a stack there would only cost the start.
   */
  expected?: true;
}

/** Retry hints for the codes the contract says carry `Retry-After`, unless the caller sets its own. */
const DEFAULT_HEADERS: Partial<Record<ErrorCode, Record<string, string>>> = {
  unauthenticated: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
  service_unavailable: { 'Retry-After': '5' },
  idp_unavailable: { 'Retry-After': '30' },
};

/** Builds a `Problem` for a catalogue code. */
export function problem(code: ErrorCode, options: ProblemOptions = {}): Problem {
  const headers = { ...DEFAULT_HEADERS[code], ...options.headers };
  return {
    kind: 'problem',
    code,
    ...(options.detail === undefined ? {} : { detail: options.detail }),
    ...(options.errors === undefined ? {} : { errors: options.errors }),
    headers,
    ...(options.cause === undefined ? {} : { cause: options.cause }),
    // A 5xx is logged with a stack; when nothing below supplied one, record where the failure was decided.
    ...(isServerError(code) && !(options.cause instanceof Error) && !options.expected
      ? { stack: new Error(`${code}: ${ERROR_CATALOGUE[code].title}`).stack }
      : {}),
  };
}

/** True when a handler's result is an expected failure rather than a success. */
export function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'problem';
}

/** The RFC 9457 body of a problem, as the contract shapes it: always its six members, `errors` when given (`problemBodySchema`). */
export type ProblemBody = z.output<ReturnType<typeof problemBodySchema.schema>>;

/**
 * Renders the client-facing body of a problem; nothing from `cause` reaches it. The one place a
 * problem body is made (the app's pipeline and the local host's own answers): a problem without a
 * `detail` of its own gets its code's from the catalogue, so no body lacks one.
 */
export function problemBody(value: Pick<Problem, 'code' | 'detail' | 'errors'>, traceId: string): ProblemBody {
  const entry = ERROR_CATALOGUE[value.code];
  return {
    type: 'about:blank',
    title: entry.title,
    status: entry.status,
    code: value.code,
    detail: value.detail ?? entry.detail,
    ...(value.errors === undefined ? {} : { errors: value.errors.map((error) => ({ ...error })) }),
    traceId,
  };
}

/** The shape of `problemBody` (every code of the catalogue), for the OpenAPI document. */
export const problemBodySchema = lazySchema(() =>
  z.strictObject({
    type: z.literal('about:blank'),
    title: z.string(),
    status: z.number().check(z.int()),
    code: z.enum(Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]]),
    detail: z.string(),
    errors: z.optional(z.array(z.strictObject({ pointer: z.string(), code: z.string(), detail: z.string() }))),
    traceId: z.string(),
  }),
);
