import type { DeliveryOutcome } from '../../ports/delivery';

/**
 * The small HTTP toolkit the provider adapters share: one request with a deadline, and the rules
 * that turn an HTTP failure into a `provider_error`. Nothing here reads or keeps a response body
 * beyond handing it back: bodies may echo addresses and tokens.
 */

/** `fetch`'s shape; tests pass their own to point adapters at local fake servers. */
export type Fetch = typeof fetch;

export type ProviderError = Extract<DeliveryOutcome, { result: 'provider_error' }>;

/** What the adapters read of an answer's headers (a fetch `Headers` is one). */
export interface HttpHeaders {
  get(name: string): string | null | undefined;
}

export interface HttpAnswer {
  status: number;
  headers: HttpHeaders;
  text: string;
}

/** One request as the adapters make it. */
export interface HttpRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/**
 * Makes one request and reads its whole answer (decoded text). Rejects on a network failure, and
 * when `signal` aborts the request or the reading of its answer.
 */
export type HttpClient = (url: string, request: HttpRequest, signal: AbortSignal) => Promise<HttpAnswer>;

export type HttpAttempt = { ok: true; answer: HttpAnswer } | { ok: false; outcome: ProviderError };

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** The `code` of a provider call refused, or cut short, because the instance is shutting down. */
export const SHUTDOWN_CODE = 'shutdown';

/**
 * The outcome of a call the shutdown refused or aborted: transient, and never retried inside the
 * invocation (a `Retry-After` longer than any in-invocation wait), so the row is released for the
 * redelivered message. An aborted call may still have reached the provider: the redelivery relies
 * on the provider's idempotency where it has one (ACS e-mail: the row's operation id).
 */
export function shutdownOutcome(): ProviderError {
  return { result: 'provider_error', code: SHUTDOWN_CODE, transient: true, retryAfterMs: Number.POSITIVE_INFINITY };
}

/**
 * Makes one request and reads the whole answer. A network failure or a missed deadline is not
 * thrown but returned as a transient `provider_error` (`network_error`, `timeout`): the provider
 * may be back a moment later.
 * @param abortSignal the shutdown deadline: aborts the request and its answer's reading
 *   (`shutdownOutcome`).
 */
export async function sendHttpRequest(
  client: HttpClient,
  url: string,
  request: HttpRequest,
  timeoutMs: number,
  abortSignal?: AbortSignal,
): Promise<HttpAttempt> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    return { ok: true, answer: await client(url, request, abortSignal ? AbortSignal.any([timeout, abortSignal]) : timeout) };
  } catch (error) {
    if (abortSignal?.aborted) return { ok: false, outcome: shutdownOutcome() };
    const timedOut = timeout.aborted || (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'));
    return { ok: false, outcome: { result: 'provider_error', code: timedOut ? 'timeout' : 'network_error', transient: true } };
  }
}

/** An `HttpClient` on a `fetch` (tests hand adapters their own). */
export function fetchClient(fetchFn: Fetch): HttpClient {
  return async (url, request, signal) => {
    const response = await fetchFn(url, { ...request, signal });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
}

/** 408, 429 and 5xx may pass; any other refusal will be repeated for the same request. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * The `provider_error` for a whole request the provider refused.
 * @param providerCode the error code the provider's body names, if any; kept only when it is a
 *   short label (`safeLabel`), otherwise the code is `http_<status>`.
 */
export function httpFailure(answer: HttpAnswer, providerCode: unknown, now: Date): ProviderError {
  const retryAfter = retryAfterMs(answer.headers, now);
  return {
    result: 'provider_error',
    code: safeLabel(providerCode) ?? httpStatusCode(answer.status),
    transient: isTransientStatus(answer.status),
    ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
  };
}

export function httpStatusCode(status: number): string {
  return `http_${status}`;
}

const LABEL = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/**
 * `value` when it is a short identifier-like label (a provider's error code), else undefined.
 * Provider messages are never used: they quote the token or address they are about.
 */
export function safeLabel(value: unknown): string | undefined {
  return typeof value === 'string' && LABEL.test(value) ? value : undefined;
}

/** `Retry-After` in milliseconds (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(headers: { get(name: string): string | null | undefined }, now: Date): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/** The JSON in `text`, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `value` as a plain object, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
