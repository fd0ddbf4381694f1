import type { components } from './schema';

/** An RFC 9457 problem body as the API sends it (`application/problem+json`). */
export type ProblemBody = components['schemas']['Problem'];

/** The API's stable error codes (its error catalogue), as the document lists them. */
export type ProblemCode = ProblemBody['code'];

/** A failing field of a request body: a JSON Pointer into the body sent, a code, what a valid value looks like. */
export type FieldError = NonNullable<ProblemBody['errors']>[number];

/**
 * A refusal or failure of the API, read from its problem+json answer: the stable `code` to branch
 * on, the HTTP `status`, a `detail` safe to log (it never echoes what was sent), the answer's
 * `X-Request-Id` and the problem's `traceId` to quote in a bug report, and `retryAfter` (seconds)
 * when the answer says when to try again (429, 503). An answer that is not a problem (a proxy's
 * HTML page, say) gets the code `unreadable_answer` and its status.
 */
export class ApiProblem extends Error {
  override readonly name = 'ApiProblem';
  readonly status: number;
  readonly code: ProblemCode | 'unreadable_answer';
  readonly title: string;
  readonly detail: string;
  /** One entry per failing field (`invalid_request`, `weak_secret`); empty otherwise. */
  readonly errors: readonly FieldError[];
  /** The answer's `X-Request-Id`, when it had one. */
  readonly requestId: string | undefined;
  readonly traceId: string | undefined;
  /** Seconds to wait before trying again (`Retry-After`), when the answer said. */
  readonly retryAfter: number | undefined;

  constructor(response: Response, body: unknown) {
    const problem = isProblemBody(body) ? body : undefined;
    const detail = problem?.detail ?? `The API answered ${response.status} without a problem body.`;
    super(`${response.status} ${problem?.code ?? 'unreadable_answer'}: ${detail}`);
    this.status = response.status;
    this.code = problem?.code ?? 'unreadable_answer';
    this.title = problem?.title ?? response.statusText;
    this.detail = detail;
    this.errors = problem?.errors ?? [];
    this.requestId = response.headers.get('x-request-id') ?? undefined;
    this.traceId = problem?.traceId;
    this.retryAfter = retryAfterSeconds(response.headers.get('retry-after'), Date.now());
  }
}

function isProblemBody(body: unknown): body is ProblemBody {
  if (typeof body !== 'object' || body === null) return false;
  const { code, status, detail } = body as Record<string, unknown>;
  return typeof code === 'string' && typeof status === 'number' && typeof detail === 'string';
}

/** `Retry-After` in seconds: delay-seconds as sent, or an HTTP date (RFC 9110 §10.2.3) as seconds from `now`. */
export function retryAfterSeconds(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
