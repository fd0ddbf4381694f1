import type { HttpClient, Pipeline, PipelineRequest, PipelineResponse } from '@azure/core-rest-pipeline';
import type { AcsAccess } from '../../config';
import { acsClientArguments, acsClientOptions, observeTries, type AcsPipelineSettings } from './acs-pipeline';
import type { SendObserver } from '../../ports/delivery';

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
  /** Sends `request` with its retries, `observer` told of each try. */
  send(request: PipelineRequest, observer?: SendObserver): Promise<PipelineResponse>;
}

/**
 * Builds the send pipeline of one adapter.
 * @param userAgentPrefix the SDK package's user agent (`azsdk-js-communication-sms/1.1.0`), so ACS
 *   sees the client it saw before; none for the e-mail send, which went through a bare ServiceClient.
 * @throws the SDK's parse error of a bad connection string (which quotes it: never log it).
 */
export function createAcsSendPipeline(settings: AcsPipelineSettings & { access: AcsAccess }, userAgentPrefix?: string): AcsSendPipeline {
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
  return { send: (request, observer) => observeTries(observer, request, () => pipeline.sendRequest(httpClient, request)) };
}
