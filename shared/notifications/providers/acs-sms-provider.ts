import type { SmsClient, SmsSendResult } from '@azure/communication-sms';
import type { AcsAccess } from '../../config';
import { acsClientArguments, acsClientOptions, acsFailure, observeTries, sendAbortSignal, type AcsPipelineSettings } from './acs-pipeline';
import type { DeliveryOutcome, SmsProvider } from './delivery';
import { httpStatusCode, isTransientStatus, shutdownOutcome } from './provider-http';

/**
 * SMS through Azure Communication Services with its official SDK (`@azure/communication-sms`),
 * one recipient per request, with a delivery report requested and the ledger row named in the
 * `tag` (the report carries it back).
 *
 * Mapping: a recipient result `successful` → `accepted` (`providerMessageId` = its `messageId`;
 * the delivery report settles it); otherwise its `httpStatusCode` decides: 408/429/5xx →
 * transient, other codes (400: a number the carrier will not take) → permanent, code
 * `http_<status>`. A refused request → `acsFailure`. `errorMessage`s are never read: they quote the
 * number.
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
      client = args.length === 1 ? new sdk.SmsClient(args[0], acsClientOptions(options)) : new sdk.SmsClient(args[0], args[1], acsClientOptions(options));
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
  return { result: 'provider_error', code: httpStatusCode(status), transient: isTransientStatus(status) };
}
