import { systemClock, type Clock } from '../../ports/clock';
import { acsAuthenticationHeaders, parseAcsConnectionString } from './acs-auth';
import type { DeliveryOutcome, SmsProvider } from './delivery';
import {
  asRecord,
  DEFAULT_REQUEST_TIMEOUT_MS,
  httpFailure,
  httpStatusCode,
  isTransientStatus,
  parseJson,
  sendHttpRequest,
  type Fetch,
} from './provider-http';

/**
 * SMS through the Azure Communication Services REST API (`POST {endpoint}/sms?api-version=2021-03-07`,
 * HMAC-signed), one recipient per request.
 *
 * Mapping: the 202 answer carries one result per recipient; `successful` → success
 * (`providerMessageId` = its `messageId`); otherwise its `httpStatusCode` decides: 408/429/5xx →
 * transient, other codes (400: a number the carrier will not take) → permanent, code `http_<status>`.
 * A refused request (401 bad signature, 400 …) → permanent, 408/429/5xx → transient, code = the
 * body's `error.code` or `http_<status>`. `errorMessage`s are never read: they quote the number.
 */

export const ACS_SMS_API_VERSION = '2021-03-07';

export interface AcsSmsProviderOptions {
  /** `config.notifications.acsConnectionString`. */
  connectionString: string;
  /** The sending number (E.164), `config.notifications.acsSmsFrom`. */
  from: string;
  fetch?: Fetch;
  requestTimeoutMs?: number;
  clock?: Clock;
}

/** Creates the ACS SMS adapter; throws for a malformed connection string (bad configuration). */
export function createAcsSmsProvider(options: AcsSmsProviderOptions): SmsProvider {
  const { endpoint, accessKey } = parseAcsConnectionString(options.connectionString);
  const fetchFn = options.fetch ?? fetch;
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const clock = options.clock ?? systemClock;
  const url = `${endpoint}/sms?api-version=${ACS_SMS_API_VERSION}`;

  return {
    async send(message) {
      const body = JSON.stringify({
        from: options.from,
        smsRecipients: [{ to: message.to }],
        message: message.text,
        smsSendOptions: { enableDeliveryReport: false },
      });
      const headers = {
        accept: 'application/json',
        'content-type': 'application/json',
        ...acsAuthenticationHeaders({ method: 'POST', url, body, accessKey, now: clock.now() }),
      };
      const attempt = await sendHttpRequest(fetchFn, url, { method: 'POST', headers, body }, timeoutMs);
      if (!attempt.ok) return attempt.outcome;
      const answer = attempt.answer;
      const parsed = asRecord(parseJson(answer.text));
      if (answer.status !== 202 && answer.status !== 200) {
        return httpFailure(answer, asRecord(parsed?.error)?.code, clock.now());
      }
      const results = Array.isArray(parsed?.value) ? parsed.value : [];
      return recipientOutcome(asRecord(results[0]));
    },
  };
}

function recipientOutcome(result: Record<string, unknown> | undefined): DeliveryOutcome {
  // Accepted but unreadable: the message may be on its way, so no retry that could send it twice.
  if (result === undefined) return { result: 'provider_error', code: 'bad_response', transient: false };
  if (result.successful === true) {
    return typeof result.messageId === 'string' && result.messageId.length > 0
      ? { result: 'success', providerMessageId: result.messageId }
      : { result: 'success' };
  }
  const status = typeof result.httpStatusCode === 'number' ? result.httpStatusCode : 500;
  return { result: 'provider_error', code: httpStatusCode(status), transient: isTransientStatus(status) };
}
