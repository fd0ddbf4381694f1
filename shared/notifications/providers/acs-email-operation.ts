import type { ServiceClient } from '@azure/core-client';
import type { AcsAccess } from '../../config';
import { acsClientArguments, acsClientOptions, acsFailure, isLoopbackHttp, type AcsPipelineSettings } from './acs-pipeline';
import type { DeliveryOutcome, EmailOperationState } from '../../ports/delivery';
import { asRecord, parseJson, safeLabel } from './provider-http';

/** ACS's code for mail dropped because every recipient is on its suppression list (hard-bounced before). */
export const SUPPRESSED_RECIPIENT_CODE = 'EmailDroppedAllRecipientsSuppressed';

/**
 * ACS's code for an operation it does not know (404). Asked minutes after a send, long before ACS
 * forgets an operation, it means the send never reached ACS.
 */
export const OPERATION_NOT_FOUND = 'NotFound';

/** The e-mail API version the SDK speaks (`@azure/communication-email` 1.1): the status request uses the same. */
export const ACS_EMAIL_API_VERSION = '2025-09-01';

const clients = new WeakMap<object, ServiceClient>();

/**
 * The client of the e-mail API's requests (the send and the status read), one per adapter's
 * settings: the SDK's own pipeline pieces, its authentication policy (`createCommunicationAuthPolicy`:
 * HMAC with a connection string, the managed identity's token otherwise) and the same retry and
 * per-try policies as the SMS client.
 * @throws the SDK's parse error of a bad connection string (which quotes it: never log it).
 */
export function acsEmailClient(settings: AcsPipelineSettings & { access: AcsAccess }): ServiceClient {
  let client = clients.get(settings);
  if (!client) {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const common = require('@azure/communication-common') as typeof import('@azure/communication-common');
    const core = require('@azure/core-client') as typeof import('@azure/core-client');
    /* eslint-enable @typescript-eslint/no-require-imports */
    const args = acsClientArguments(settings.access, settings);
    const { credential } = common.parseClientArguments(args[0], args[1]);
    client = new core.ServiceClient(acsClientOptions(settings));
    client.pipeline.addPolicy(common.createCommunicationAuthPolicy(credential));
    clients.set(settings, client);
  }
  return client;
}

/**
 * Asks ACS once for the state of an e-mail operation (`GET /emails/operations/{id}`): the settle
 * timer's fallback for a message whose delivery report never came. The SDK has no public call for
 * an operation it did not start in this process, so the request goes through the SDK's own
 * pipeline pieces: the same authentication policy (`createCommunicationAuthPolicy`, HMAC or the
 * managed identity's token) and the same retry and per-try policies as the send.
 * @returns `Succeeded` → ended with success; `Failed` → ended with `failedOperation`; `Canceled` →
 *   ended with a permanent error; still running → running; a refused or failed request (401/403: a
 *   role not granted yet; 404: an operation ACS no longer keeps) → unknown with its code.
 */
export async function readEmailOperation(
  settings: AcsPipelineSettings & { access: AcsAccess },
  operationId: string,
): Promise<EmailOperationState> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pipeline = require('@azure/core-rest-pipeline') as typeof import('@azure/core-rest-pipeline');
  try {
    // Inside the try: a parse error of the SDK quotes the connection string, key included.
    return await readOperation(pipeline, acsEmailClient(settings), settings, operationId);
  } catch (error) {
    return { state: 'unknown', code: acsFailure(error).code };
  }
}

async function readOperation(
  pipeline: typeof import('@azure/core-rest-pipeline'),
  client: ServiceClient,
  settings: AcsPipelineSettings & { access: AcsAccess },
  operationId: string,
): Promise<EmailOperationState> {
  const request = pipeline.createPipelineRequest({
    url: `${settings.access.endpoint}/emails/operations/${encodeURIComponent(operationId)}?api-version=${ACS_EMAIL_API_VERSION}`,
    method: 'GET',
    headers: pipeline.createHttpHeaders({ accept: 'application/json' }),
    allowInsecureConnection: isLoopbackHttp(settings.access.endpoint),
  });
  const response = await client.sendRequest(request);
  if (response.status === 404) return { state: 'unknown', code: OPERATION_NOT_FOUND };
  if (response.status !== 200) {
    return { state: 'unknown', code: acsFailure({ statusCode: response.status, code: errorCodeOf(response.bodyAsText) }).code };
  }
  const operation = jsonObjectOf(response.bodyAsText);
  switch (operation?.status) {
    case 'Succeeded':
      return { state: 'ended', outcome: { result: 'success', providerMessageId: operationId } };
    case 'Failed':
      return { state: 'ended', outcome: failedOperation((operation.error as { code?: unknown } | undefined)?.code) };
    case 'Canceled':
      return { state: 'ended', outcome: { result: 'provider_error', code: 'Canceled', transient: false } };
    default:
      return { state: 'running' };
  }
}

/** A JSON object answer's fields; undefined for anything else. */
export function jsonObjectOf(text: string | null | undefined): Record<string, unknown> | undefined {
  return asRecord(parseJson(text ?? ''));
}

/** ACS's error code in an error answer's body (`{"error":{"code":…}}`), if any. */
export function errorCodeOf(text: string | null | undefined): unknown {
  return (jsonObjectOf(text)?.error as { code?: unknown } | undefined)?.code;
}

/** A failed operation: `hard_bounce` for a suppressed recipient, else a permanent error with ACS's code. */
export function failedOperation(errorCode: unknown): DeliveryOutcome {
  const code = safeLabel(errorCode) ?? 'Failed';
  return code === SUPPRESSED_RECIPIENT_CODE ? { result: 'hard_bounce', code } : { result: 'provider_error', code, transient: false };
}

