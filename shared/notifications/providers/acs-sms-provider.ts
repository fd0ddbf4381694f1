import type { SmsClient, SmsSendResult } from '@azure/communication-sms';
import type { PipelinePolicy } from '@azure/core-rest-pipeline';
import type { AcsAccess } from '../../config';
import {
  acsClientArguments,
  acsClientOptions,
  acsFailure,
  observeTries,
  REPEATABILITY_EXPIRED_STATUS,
  sendAbortSignal,
  type AcsPipelineSettings,
} from './acs-pipeline';
import { REPEATABILITY_EXPIRED, type DeliveryOutcome, type SmsProvider } from '../../ports/delivery';
import { httpStatusCode, isTransientStatus, shutdownOutcome } from './provider-http';

/**
 * SMS through Azure Communication Services with its official SDK (`@azure/communication-sms`),
 * one recipient per request, with a delivery report requested and the ledger row named in the
 * `tag` (the report carries it back).
 *
 * Mapping: a recipient result `successful` → `accepted` (`providerMessageId` = its `messageId`;
 * the delivery report settles it); otherwise its `httpStatusCode` decides: 408/429/5xx →
 * transient, other codes (400: a number the carrier will not take) → permanent, code
 * `http_<status>`; 412 → `repeatability_expired` (the row's first send is older than ACS
 * tracks). A refused request → `acsFailure`. `errorMessage`s are never read: they quote the number.
 *
 * The SDK gives each recipient a fresh repeatability pair per call; a message that carries its own
 * (`SmsMessage.repeatability`, the ledger row's) gets that pair instead, so a resend after a
 * restart is a repeat ACS recognises.
 */

export interface AcsSmsProviderOptions extends AcsPipelineSettings {
  access: AcsAccess;
  /** The sending number (E.164), `config.notifications.acsSmsFrom`. */
  from: string;
}

/** Creates the ACS SMS adapter; the SDK is loaded with the first message. */
export function createAcsSmsProvider(options: AcsSmsProviderOptions): SmsProvider {
  let client: SmsClient | undefined;
  const smsClient = (): SmsClient => {
    if (!client) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const sdk = require('@azure/communication-sms') as typeof import('@azure/communication-sms');
      const args = acsClientArguments(options.access, options);
      const clientOptions = acsClientOptions(options, [rowRepeatabilityPolicy]);
      client = args.length === 1 ? new sdk.SmsClient(args[0], clientOptions) : new sdk.SmsClient(args[0], args[1], clientOptions);
    }
    return client;
  };

  return {
    async send(message, observer) {
      if (options.shutdown?.stopping.aborted) return shutdownOutcome();
      try {
        const results = await observeTries(observer, () =>
          smsClient().send(
            { from: options.from, to: [message.to], message: message.text },
            {
              enableDeliveryReport: true,
              ...(message.tag ? { tag: message.tag } : {}),
              ...(message.repeatability
                ? {
                    requestOptions: {
                      customHeaders: {
                        [REQUEST_ID_HEADER]: message.repeatability.requestId,
                        [FIRST_SENT_HEADER]: message.repeatability.firstSent.toUTCString(),
                      },
                    },
                  }
                : {}),
              abortSignal: sendAbortSignal(options),
            },
          ),
        );
        return recipientOutcome(results[0]);
      } catch (error) {
        // Cut off at the deadline: ACS may have taken it, and nothing tells; the row is released.
        if (options.shutdown?.deadline.aborted) return shutdownOutcome();
        return acsFailure(error);
      }
    },
  };
}

function recipientOutcome(result: SmsSendResult | undefined): DeliveryOutcome {
  // Accepted but unreadable: the message may be on its way, so no retry that could send it twice.
  if (result === undefined) return { result: 'provider_error', code: 'bad_response', transient: false };
  if (result.successful) {
    // Without a message id the report still finds the row by its tag.
    return result.messageId ? { result: 'accepted', providerMessageId: result.messageId } : { result: 'accepted' };
  }
  const status = typeof result.httpStatusCode === 'number' ? result.httpStatusCode : 500;
  if (status === REPEATABILITY_EXPIRED_STATUS) return { result: 'provider_error', code: REPEATABILITY_EXPIRED, transient: false };
  return { result: 'provider_error', code: httpStatusCode(status), transient: isTransientStatus(status) };
}

/** Where a send hands its row's pair to `rowRepeatabilityPolicy`; never sent to ACS. */
const REQUEST_ID_HEADER = 'x-app-repeatability-request-id';
const FIRST_SENT_HEADER = 'x-app-repeatability-first-sent';

/**
 * Puts the row's repeatability pair where ACS's SMS API takes it (each `smsRecipients[]` item of
 * the body; the SDK filled in a fresh one) and drops the private headers. Per call, before the
 * retry policy: every retry resends the very same body.
 */
const rowRepeatabilityPolicy: PipelinePolicy = {
  name: 'acsSmsRowRepeatability',
  sendRequest(request, next) {
    const requestId = request.headers.get(REQUEST_ID_HEADER);
    const firstSent = request.headers.get(FIRST_SENT_HEADER);
    request.headers.delete(REQUEST_ID_HEADER);
    request.headers.delete(FIRST_SENT_HEADER);
    if (requestId && firstSent && typeof request.body === 'string') {
      const body = JSON.parse(request.body) as { smsRecipients?: Record<string, unknown>[] };
      for (const recipient of body.smsRecipients ?? []) {
        recipient.repeatabilityRequestId = requestId;
        recipient.repeatabilityFirstSent = firstSent;
      }
      request.body = JSON.stringify(body);
    }
    return next(request);
  },
};
