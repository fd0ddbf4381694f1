import type { ServiceClient } from '@azure/core-client';
import type { AcsAccess } from '../../config';
import { acsClientArguments, acsClientOptions, acsFailure, isLoopbackHttp, type AcsPipelineSettings } from './acs-pipeline';
import type { DeliveryOutcome } from './delivery';
import { safeLabel } from './provider-http';

/** ACS's code for mail dropped because every recipient is on its suppression list (hard-bounced before). */
export const SUPPRESSED_RECIPIENT_CODE = 'EmailDroppedAllRecipientsSuppressed';

/** The e-mail API version the SDK speaks (`@azure/communication-email` 1.1): the status request uses the same. */
export const ACS_EMAIL_API_VERSION = '2025-09-01';

/** An e-mail operation that has not ended yet. */
export const OPERATION_RUNNING = 'running';

const clients = new WeakMap<object, ServiceClient>();

/**
 * Asks ACS once for the state of an e-mail operation (`GET /emails/operations/{id}`): the settle
 * timer's fallback for a message whose delivery report never came. The SDK has no public call for
 * an operation it did not start in this process, so the request goes through the SDK's own
 * pipeline pieces: the same authentication policy (`createCommunicationAuthPolicy`, HMAC or the
 * managed identity's token) and the same retry and per-try policies as the send.
 * @returns `Succeeded` → success; `Failed` → `failedOperation`; `Canceled` → a permanent error;
 *   still running → `OPERATION_RUNNING`; a refused or failed request → its `acsFailure`.
 */
export async function readEmailOperation(
  settings: AcsPipelineSettings & { access: AcsAccess },
  operationId: string,
): Promise<DeliveryOutcome | typeof OPERATION_RUNNING> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const pipeline = require('@azure/core-rest-pipeline') as typeof import('@azure/core-rest-pipeline');
  const common = require('@azure/communication-common') as typeof import('@azure/communication-common');
  const core = require('@azure/core-client') as typeof import('@azure/core-client');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const args = acsClientArguments(settings.access, settings);
  const { url, credential } = common.parseClientArguments(args[0], args[1]);
  let client = clients.get(settings);
  if (!client) {
    client = new core.ServiceClient(acsClientOptions(settings));
    client.pipeline.addPolicy(common.createCommunicationAuthPolicy(credential));
    clients.set(settings, client);
  }
  const request = pipeline.createPipelineRequest({
    url: `${url.replace(/\/+$/, '')}/emails/operations/${encodeURIComponent(operationId)}?api-version=${ACS_EMAIL_API_VERSION}`,
    method: 'GET',
    headers: pipeline.createHttpHeaders({ accept: 'application/json' }),
    allowInsecureConnection: isLoopbackHttp(settings.access.endpoint),
  });
  try {
    const response = await client.sendRequest(request);
    if (response.status !== 200) return acsFailure({ statusCode: response.status, code: errorCodeOf(response.bodyAsText) });
    const operation = parse(response.bodyAsText);
    switch (operation?.status) {
      case 'Succeeded':
        return { result: 'success', providerMessageId: operationId };
      case 'Failed':
        return failedOperation((operation.error as { code?: unknown } | undefined)?.code);
      case 'Canceled':
        return { result: 'provider_error', code: 'Canceled', transient: false };
      default:
        return OPERATION_RUNNING;
    }
  } catch (error) {
    return acsFailure(error);
  }
}

function parse(text: string | null | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text ?? '');
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function errorCodeOf(text: string | null | undefined): unknown {
  return (parse(text)?.error as { code?: unknown } | undefined)?.code;
}

/** A failed operation: `hard_bounce` for a suppressed recipient, else a permanent error with ACS's code. */
export function failedOperation(errorCode: unknown): DeliveryOutcome {
  const code = safeLabel(errorCode) ?? 'Failed';
  return code === SUPPRESSED_RECIPIENT_CODE ? { result: 'hard_bounce', code } : { result: 'provider_error', code, transient: false };
}

