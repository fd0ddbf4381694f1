import type { CommonClientOptions } from '@azure/core-client';
import type { PipelinePolicy, PipelineRequest } from '@azure/core-rest-pipeline';
import type { TokenCredential } from '@azure/core-auth';
import { managedIdentity } from '../../azure/managed-identity';
import type { AcsAccess } from '../../config';
import type { ShutdownSignals } from '../../lifecycle/shutdown';
import type { RetryPolicy } from './retry-transient';
import { MAX_IN_INVOCATION_WAIT_MS } from './retry-transient';
import { REPEATABILITY_EXPIRED, type DeliveryOutcome, type SendObserver } from '../../ports/delivery';
import { DEFAULT_REQUEST_TIMEOUT_MS, httpStatusCode, isTransientStatus, retryAfterMs, safeLabel } from './provider-http';

/**
 * What the ACS SMS and e-mail clients share: how they authenticate (the managed identity in Azure,
 * a connection string locally), the SDK pipeline's retries, a per-try timeout that the SDK retries
 * like a dropped connection, the observer that counts tries for the delivery lines, and the mapping
 * of SDK errors to delivery outcomes. Retries happen inside the SDK's pipeline on purpose: it
 * resends the very same request, so ACS's repeatability ids (SMS: per recipient in the body; e-mail:
 * the `Repeatability-*` headers) make a retried request that ACS already took a no-op.
 */

export interface AcsPipelineSettings {
  retry: RetryPolicy;
  /** One try's limit; a try that takes longer is retried like a dropped connection. */
  requestTimeoutMs?: number;
  /**
   * Options merged into the SDK client's (tests: `tlsOptions` trusting a local fake's certificate).
   * Production passes nothing.
   */
  clientOptions?: CommonClientOptions;
  /** The credential of the identity path; default: the managed identity (`clientId`) or `DefaultAzureCredential`. */
  credential?: TokenCredential;
  /** The process's shutdown: no send starts once it is stopping; sends in flight are aborted at its deadline. */
  shutdown?: ShutdownSignals;
}

/** One send's abort signal: its budget (`sendBudgetMs`), the shutdown deadline, and `others`. */
export function sendAbortSignal(settings: AcsPipelineSettings, ...others: AbortSignal[]): AbortSignal {
  return AbortSignal.any([...others, AbortSignal.timeout(sendBudgetMs(settings)), ...(settings.shutdown ? [settings.shutdown.deadline] : [])]);
}

/** The longest one message's send may take, tries and waits included: then it counts as a transient failure. */
export function sendBudgetMs(settings: AcsPipelineSettings): number {
  const perTry = settings.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  return perTry * settings.retry.tries + MAX_IN_INVOCATION_WAIT_MS * (settings.retry.tries - 1);
}

/** The SDK constructor's arguments: `(connectionString)` or `(endpoint, credential)`. */
export function acsClientArguments(access: AcsAccess, settings: AcsPipelineSettings): [string] | [string, TokenCredential] {
  if (access.kind === 'connection-string') return [access.connectionString];
  return [access.endpoint, settings.credential ?? managedIdentity(access.clientId)];
}

/** The client options: the retry policy as the SDK's, the try policy, and `extraPolicies` (per call). */
export function acsClientOptions(
  settings: AcsPipelineSettings & { access: AcsAccess },
  extraPolicies: PipelinePolicy[] = [],
): CommonClientOptions {
  const given = settings.clientOptions ?? {};
  const loopback = isLoopbackHttp(settings.access.endpoint);
  return {
    // The SDKs refuse plain HTTP; a local stand-in on this machine (development, tests) speaks it.
    // Configuration refuses an http:// endpoint in production.
    ...(loopback ? { allowInsecureConnection: true } : {}),
    ...given,
    retryOptions: {
      maxRetries: Math.max(0, settings.retry.tries - 1),
      retryDelayInMs: settings.retry.firstDelayMs,
      maxRetryDelayInMs: MAX_IN_INVOCATION_WAIT_MS,
    },
    additionalPolicies: [
      { policy: cancelledRequestPolicy, position: 'perCall' as const },
      ...(given.additionalPolicies ?? []),
      ...extraPolicies.map((policy) => ({ policy, position: 'perCall' as const })),
      { policy: tryPolicy(settings.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS), position: 'perRetry' as const },
    ],
  };
}

/** True for an `http://` endpoint on this machine: a local stand-in, never a real ACS resource. */
export function isLoopbackHttp(endpoint: string): boolean {
  try {
    const url = new URL(endpoint);
    return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  } catch {
    return false;
  }
}

/**
 * A request cancelled before it starts (its send's budget spent, or the shutdown's deadline passed
 * while it waited) ends here, before it is signed and handed to the HTTP client: the same
 * AbortError, without the work.
 */
const cancelledRequestPolicy: PipelinePolicy = {
  name: 'acsCancelledRequest',
  sendRequest(request, next) {
    if (request.abortSignal?.aborted) {
      const cancelled = new Error('The request was cancelled before it was sent.');
      cancelled.name = 'AbortError';
      return Promise.reject(cancelled);
    }
    return next(request);
  },
};

interface ObservedSend extends SendObserver {
  lastFailure?: string;
}

/** Each send's observer, by its request: the retry policy resends the very same request object. */
const observed = new WeakMap<PipelineRequest, ObservedSend>();

/** Runs the send of `request` with `observer` told of each try (the SDK's retries included). */
export function observeTries<T>(observer: SendObserver | undefined, request: PipelineRequest, send: () => Promise<T>): Promise<T> {
  if (observer) observed.set(request, observer);
  return send();
}

/**
 * Per try: counts it for the observer (reporting the failure being retried), bounds it by
 * `timeoutMs`, and ends the send at once on a `Retry-After` longer than an invocation waits
 * (`MAX_IN_INVOCATION_WAIT_MS`: the queue's redelivery is the pause then). The SDK's own `timeout`
 * ends a try with an AbortError, which it never retries; this policy's timeout is a `RestError` with
 * code `ETIMEDOUT`, which its retry strategy retries like a dropped connection, resending the same
 * repeatable request.
 */
function tryPolicy(timeoutMs: number): PipelinePolicy {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { RestError } = require('@azure/core-rest-pipeline') as typeof import('@azure/core-rest-pipeline');
  return {
    name: 'acsDeliveryTry',
    async sendRequest(request, next) {
      // A request cancelled before it is sent is no try.
      if (request.abortSignal?.aborted) return next(request);
      const observer = observed.get(request);
      if (observer) {
        if (observer.tries > 0) observer.onRetry?.(observer.lastFailure ?? 'unknown', observer.tries);
        observer.tries += 1;
      }
      const outer = request.abortSignal;
      const thisTry = new AbortController();
      const abort = (): void => thisTry.abort();
      outer?.addEventListener('abort', abort);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        thisTry.abort();
      }, timeoutMs);
      request.abortSignal = thisTry.signal;
      try {
        const response = await next(request);
        if (observer && response.status >= 400) observer.lastFailure = httpStatusCode(response.status);
        const waitMs = retryAfterMs(response.headers, new Date());
        if ((response.status === 429 || response.status === 503) && waitMs !== undefined && waitMs > MAX_IN_INVOCATION_WAIT_MS) {
          // Without `response` on the error, the SDK's retry strategies stop instead of waiting it out.
          throw new RestError('the provider asks for a longer pause than an invocation waits', { statusCode: response.status, request });
        }
        return response;
      } catch (error) {
        if (timedOut && !outer?.aborted) {
          if (observer) observer.lastFailure = 'timeout';
          throw new RestError('the provider did not answer in time', { code: 'ETIMEDOUT', request });
        }
        if (observer && !(error instanceof RestError && error.statusCode !== undefined)) observer.lastFailure = 'network';
        throw error;
      } finally {
        clearTimeout(timer);
        outer?.removeEventListener('abort', abort);
        request.abortSignal = outer;
      }
    },
  };
}

/**
 * ACS's answer to a repeatable request whose first-sent time is older than it tracks (5 minutes):
 * it neither executes nor recognises it (`REPEATABILITY_EXPIRED`).
 */
export const REPEATABILITY_EXPIRED_STATUS = 412;

/**
 * The outcome of a send the SDK gave up on: its HTTP status decides (408/429/5xx transient, other
 * codes permanent), with ACS's error code when it sent one; no status (a timeout, a dropped
 * connection, the send's budget spent) is transient. Error messages are never read: ACS's may
 * quote the address.
 */
export function acsFailure(error: unknown): Extract<DeliveryOutcome, { result: 'provider_error' }> {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number') {
    if (status === REPEATABILITY_EXPIRED_STATUS) return { result: 'provider_error', code: REPEATABILITY_EXPIRED, transient: false };
    const code = safeLabel((error as { code?: unknown }).code) ?? httpStatusCode(status);
    return { result: 'provider_error', code, transient: isTransientStatus(status) };
  }
  const code = (error as { code?: unknown } | null)?.code === 'ETIMEDOUT' || (error as Error | null)?.name === 'AbortError' ? 'timeout' : 'network';
  // No status: a timeout, a dropped connection or the send's budget spent.
  return { result: 'provider_error', code, transient: true };
}
