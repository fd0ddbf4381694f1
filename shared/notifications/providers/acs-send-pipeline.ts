import type { HttpClient, Pipeline } from '@azure/core-rest-pipeline';
import type { AcsAccess } from '../../config';
import { acsClientArguments, acsClientOptions, acsFailure, isLoopbackHttp, observeTries, sendAbortSignal, type AcsPipelineSettings } from './acs-pipeline';
import type { SendObserver } from '../../ports/delivery';
import { shutdownOutcome, type ProviderError } from './provider-http';

/**
 * The pipeline an ACS send (an SMS, an e-mail) goes through: the SDK client's own policies that the
 * request needs, in the SDK's order, and none of the rest. Kept: proxy and TLS settings, the
 * `Accept-Encoding` the SDK sends, its user agent and `x-ms-client-request-id`, the authentication
 * (`createCommunicationAuthPolicy`: HMAC with a connection string, the managed identity's token
 * otherwise; signed once per call, before the retries, as in the SDK client), the SDK's retries
 * (`defaultRetryPolicy` with the same options), and the app's per-call and per-try policies
 * (`acsClientOptions`). Left out: the SDK's tracing spans and policy (no tracer is configured), its
 * log policy, redirects (ACS's send answers none), and the model serializer and deserializer of
 * the generated clients: the body is the SDK's JSON written directly, and the answer read as JSON.
 * Those were half of an SMS's CPU in the fan-out (bench/results.md).
 */
export interface AcsSendPipeline {
  /**
   * POSTs `request` to `path` (below the endpoint, with its query) with its retries, `observer`
   * told of each try. Nothing is sent once the instance is stopping; a send cut off at the shutdown's
   * deadline, or failed without an answer, is the outcome it stands for.
   */
  post(path: string, request: { body: string; headers: Record<string, string> }, observer?: SendObserver): Promise<AcsAnswer>;
}

/** ACS's answer to a send (any status: the adapter reads it), or the outcome of a send that got none. */
export type AcsAnswer = { ok: true; status: number; body: string | undefined } | { ok: false; outcome: ProviderError };

/**
 * The send pipeline of one adapter, built at its first send.
 * @param userAgentPrefix the SDK package's user agent (`azsdk-js-communication-sms/1.1.0`), so ACS
 *   sees the client it saw before; none for the e-mail send, which went through a bare ServiceClient.
 */
export function createAcsSendPipeline(settings: AcsPipelineSettings & { access: AcsAccess }, userAgentPrefix?: string): AcsSendPipeline {
  const endpoint = settings.access.endpoint.replace(/\/+$/, '');
  const allowInsecureConnection = isLoopbackHttp(settings.access.endpoint);
  let built: { core: typeof import('@azure/core-rest-pipeline'); pipeline: Pipeline; httpClient: HttpClient } | undefined;
  return {
    async post(path, request, observer) {
      if (settings.shutdown?.stopping.aborted) return { ok: false, outcome: shutdownOutcome() };
      try {
        // Inside the try: a parse error of the SDK quotes the connection string, key included.
        built ??= buildPipeline(settings, userAgentPrefix);
        const { core, pipeline, httpClient } = built;
        const sent = core.createPipelineRequest({
          url: `${endpoint}${path}`,
          method: 'POST',
          body: request.body,
          headers: core.createHttpHeaders(request.headers),
          abortSignal: sendAbortSignal(settings),
          allowInsecureConnection,
        });
        const response = await observeTries(observer, sent, () => pipeline.sendRequest(httpClient, sent));
        return { ok: true, status: response.status, body: response.bodyAsText ?? undefined };
      } catch (error) {
        // Cut off at the deadline: ACS may have taken it, and nothing tells (the adapter's row is released).
        if (settings.shutdown?.deadline.aborted) return { ok: false, outcome: shutdownOutcome() };
        return { ok: false, outcome: acsFailure(error) };
      }
    },
  };
}

/** @throws the SDK's parse error of a bad connection string (which quotes it: never log it). */
function buildPipeline(settings: AcsPipelineSettings & { access: AcsAccess }, userAgentPrefix: string | undefined) {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const core = require('@azure/core-rest-pipeline') as typeof import('@azure/core-rest-pipeline');
  const common = require('@azure/communication-common') as typeof import('@azure/communication-common');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const args = acsClientArguments(settings.access, settings);
  const { credential } = common.parseClientArguments(args[0], args[1]);
  const options = acsClientOptions(settings);
  const pipeline: Pipeline = core.createEmptyPipeline();
  if (options.agent) pipeline.addPolicy(core.agentPolicy(options.agent));
  if (options.tlsOptions) pipeline.addPolicy(core.tlsPolicy(options.tlsOptions));
  pipeline.addPolicy(core.proxyPolicy(options.proxyOptions));
  pipeline.addPolicy(core.decompressResponsePolicy());
  pipeline.addPolicy(core.userAgentPolicy(userAgentPrefix === undefined ? {} : { userAgentPrefix }));
  pipeline.addPolicy(core.setClientRequestIdPolicy());
  pipeline.addPolicy(core.defaultRetryPolicy(options.retryOptions), { phase: 'Retry' });
  // As the SDK's ServiceClient places them: per call before the retries, per try after signing.
  for (const { policy, position } of options.additionalPolicies ?? []) {
    pipeline.addPolicy(policy, position === 'perRetry' ? { afterPhase: 'Sign' } : {});
  }
  pipeline.addPolicy(common.createCommunicationAuthPolicy(credential));
  const httpClient: HttpClient = options.httpClient ?? core.createDefaultHttpClient();
  return { core, pipeline, httpClient };
}
