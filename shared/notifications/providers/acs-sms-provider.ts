import { randomUUID } from 'node:crypto';
import type { AcsAccess } from '../../config';
import { acsFailure, REPEATABILITY_EXPIRED_STATUS, type AcsPipelineSettings } from './acs-pipeline';
import { errorCodeOf, jsonObjectOf } from './acs-email-operation';
import { createAcsSendPipeline } from './acs-send-pipeline';
import { REPEATABILITY_EXPIRED, type DeliveryOutcome, type SmsProvider } from '../../ports/delivery';
import { asRecord, httpStatusCode, isTransientStatus } from './provider-http';

/**
 * SMS through Azure Communication Services: the SMS API's send (`POST /sms`, api-version
 * 2021-03-07, the request `@azure/communication-sms`'s `SmsClient.send` makes, byte for byte, a
 * test holds it so) through the SDK's own pipeline pieces (`acs-send-pipeline.ts`: its
 * authentication, retries, user agent and request id), one recipient per request, with a delivery
 * report requested and the ledger row named in the `tag` (the report carries it back). Not
 * `SmsClient` itself: its tracing spans, model serializer and deserializer, and the body rewritten
 * for the row's repeatability pair cost half an SMS's CPU in the fan-out (bench/results.md).
 *
 * Mapping: a recipient result `successful` → `accepted` (`providerMessageId` = its `messageId`;
 * the delivery report settles it); otherwise its `httpStatusCode` decides: 408/429/5xx →
 * transient, other codes (400: a number the carrier will not take) → permanent, code
 * `http_<status>`; 412 → `repeatability_expired` (the row's first send is older than ACS
 * tracks). A refused request (any answer but 202, as the SDK's operation expects) → `acsFailure`
 * with ACS's error code. `errorMessage`s are never read: they quote the number.
 *
 * Each recipient carries a repeatability pair (`repeatabilityRequestId`, `repeatabilityFirstSent`
 * in the body, which every retry resends): the ledger row's (`SmsMessage.repeatability`), so a
 * resend after a restart is a repeat ACS recognises; else, as the SDK does, a fresh one per call.
 */

export interface AcsSmsProviderOptions extends AcsPipelineSettings {
  access: AcsAccess;
  /** The sending number (E.164), `config.notifications.acsSmsFrom`. */
  from: string;
}

/** The SMS API version `@azure/communication-sms` 1.1 speaks. */
export const ACS_SMS_API_VERSION = '2021-03-07';

/** The SDK's user agent (`azsdk-js-communication-sms/<version>`), so ACS sees the client it saw. */
const SMS_USER_AGENT = 'azsdk-js-communication-sms/1.1.0';

/** Creates the ACS SMS adapter; the SDK's pipeline pieces are loaded with the first message. */
export function createAcsSmsProvider(options: AcsSmsProviderOptions): SmsProvider {
  const pipeline = createAcsSendPipeline(options, SMS_USER_AGENT);
  return {
    async send(message, observer) {
      const answer = await pipeline.post(
        `/sms?api-version=${ACS_SMS_API_VERSION}`,
        {
          body: JSON.stringify({
            from: options.from,
            smsRecipients: [
              {
                to: message.to,
                repeatabilityRequestId: message.repeatability?.requestId ?? randomUUID(),
                repeatabilityFirstSent: (message.repeatability?.firstSent ?? new Date()).toUTCString(),
              },
            ],
            message: message.text,
            smsSendOptions: { enableDeliveryReport: true, ...(message.tag ? { tag: message.tag } : {}) },
          }),
          headers: { 'content-type': 'application/json', accept: 'application/json' },
        },
        observer,
      );
      if (!answer.ok) return answer.outcome;
      if (answer.status !== 202) return acsFailure({ statusCode: answer.status, code: errorCodeOf(answer.body) });
      const results = jsonObjectOf(answer.body)?.value;
      return recipientOutcome(Array.isArray(results) ? (asRecord(results[0]) as SmsSendResult | undefined) : undefined);
    },
  };
}

/** One recipient's result in ACS's 202 answer (`value[]`). */
interface SmsSendResult {
  messageId?: unknown;
  httpStatusCode?: unknown;
  successful?: unknown;
}

function recipientOutcome(result: SmsSendResult | undefined): DeliveryOutcome {
  // Accepted but unreadable: the message may be on its way, so no retry that could send it twice.
  if (result === undefined) return { result: 'provider_error', code: 'bad_response', transient: false };
  if (result.successful === true) {
    // Without a message id the report still finds the row by its tag.
    return typeof result.messageId === 'string' && result.messageId ? { result: 'accepted', providerMessageId: result.messageId } : { result: 'accepted' };
  }
  const status = typeof result.httpStatusCode === 'number' ? result.httpStatusCode : 500;
  if (status === REPEATABILITY_EXPIRED_STATUS) return { result: 'provider_error', code: REPEATABILITY_EXPIRED, transient: false };
  return { result: 'provider_error', code: httpStatusCode(status), transient: isTransientStatus(status) };
}
