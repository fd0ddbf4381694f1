import { setTimeout as delay } from 'node:timers/promises';
import { systemClock, type Clock } from '../../ports/clock';
import { acsAuthenticationHeaders, parseAcsConnectionString } from './acs-auth';
import type { DeliveryOutcome, EmailProvider } from './delivery';
import {
  asRecord,
  DEFAULT_REQUEST_TIMEOUT_MS,
  httpFailure,
  parseJson,
  retryAfterMs,
  safeLabel,
  sendHttpRequest,
  type Fetch,
} from './provider-http';

/**
 * E-mail through the Azure Communication Services REST API: `POST {endpoint}/emails:send` queues
 * the message (202, a long-running operation), then `GET {endpoint}/emails/operations/{id}` is
 * polled a few times for its end state. Both requests are HMAC-signed.
 *
 * Mapping:
 * - operation `Succeeded` → success (`providerMessageId` = the operation id);
 * - operation `Failed` with `EmailDroppedAllRecipientsSuppressed` → `hard_bounce`: ACS drops mail to
 *   addresses on its managed suppression list, where it puts addresses that hard-bounced;
 * - operation `Failed` with another code, or `Canceled` → permanent `provider_error` with that code;
 * - still running after the polls, or the polling itself failing → success: ACS accepted the
 *   message, and sending it again could deliver it twice;
 * - a refused send: 408/429/5xx or no answer → transient; 400 (also an unusable address) and other
 *   4xx → permanent, code = the body's `error.code` or `http_<status>`. A 400 is not taken for a
 *   hard bounce: it cannot be told apart from a fault of our own request.
 * First-time bounces that ACS learns of only after accepting the message arrive as Event Grid
 * delivery reports, which this adapter does not receive. Error messages are never read: they
 * may quote the address.
 */

export const ACS_EMAIL_API_VERSION = '2023-03-31';

export const SUPPRESSED_RECIPIENT_CODE = 'EmailDroppedAllRecipientsSuppressed';

export interface AcsEmailPolling {
  /** Status requests after the send before the message counts as accepted (0: never poll). Default 3. */
  maxPolls: number;
  /** Upper bound of one wait between polls; ACS's `Retry-After` is honoured below it. Default 2000 ms. */
  maxIntervalMs: number;
  /** The wait when ACS sends no `Retry-After`. Default 1000 ms. */
  defaultIntervalMs: number;
}

export interface AcsEmailProviderOptions {
  /** `config.notifications.acsConnectionString`. */
  connectionString: string;
  /** A sender address of a verified domain, `config.notifications.acsEmailSender`. */
  senderAddress: string;
  fetch?: Fetch;
  requestTimeoutMs?: number;
  clock?: Clock;
  polling?: Partial<AcsEmailPolling>;
  /** Waits between polls; tests pass a recorder. */
  sleep?: (ms: number) => Promise<void>;
}

const DEFAULT_POLLING: AcsEmailPolling = { maxPolls: 3, maxIntervalMs: 2000, defaultIntervalMs: 1000 };
const TERMINAL = new Set(['Succeeded', 'Failed', 'Canceled']);

/** Creates the ACS e-mail adapter; throws for a malformed connection string (bad configuration). */
export function createAcsEmailProvider(options: AcsEmailProviderOptions): EmailProvider {
  const { endpoint, accessKey } = parseAcsConnectionString(options.connectionString);
  const fetchFn = options.fetch ?? fetch;
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const clock = options.clock ?? systemClock;
  const polling = { ...DEFAULT_POLLING, ...options.polling };
  const sleep = options.sleep ?? ((ms: number) => delay(ms));

  const signedRequest = (method: 'GET' | 'POST', url: string, body: string) => {
    const headers = {
      accept: 'application/json',
      ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      ...acsAuthenticationHeaders({ method, url, body, accessKey, now: clock.now() }),
    };
    return sendHttpRequest(fetchFn, url, { method, headers, ...(method === 'POST' ? { body } : {}) }, timeoutMs);
  };

  return {
    async send(message) {
      const body = JSON.stringify({
        senderAddress: options.senderAddress,
        recipients: { to: [{ address: message.to }] },
        content: { subject: message.subject, plainText: message.text },
        // No tracking pixels or rewritten links in mail to children and their parents.
        userEngagementTrackingDisabled: true,
      });
      const sent = await signedRequest('POST', `${endpoint}/emails:send?api-version=${ACS_EMAIL_API_VERSION}`, body);
      if (!sent.ok) return sent.outcome;
      const parsed = asRecord(parseJson(sent.answer.text));
      if (sent.answer.status !== 202) return httpFailure(sent.answer, asRecord(parsed?.error)?.code, clock.now());

      const operationId = readOperationId(parsed, sent.answer.headers);
      if (operationId === undefined) return { result: 'provider_error', code: 'bad_response', transient: false };
      let status = parsed;
      let waitMs = retryAfterMs(sent.answer.headers, clock.now());
      for (let poll = 0; poll < polling.maxPolls && !TERMINAL.has(String(status?.status)); poll += 1) {
        await sleep(Math.min(waitMs ?? polling.defaultIntervalMs, polling.maxIntervalMs));
        const url = `${endpoint}/emails/operations/${encodeURIComponent(operationId)}?api-version=${ACS_EMAIL_API_VERSION}`;
        const answer = await signedRequest('GET', url, '');
        if (!answer.ok || answer.answer.status !== 200) break;
        status = asRecord(parseJson(answer.answer.text));
        waitMs = retryAfterMs(answer.answer.headers, clock.now());
      }
      return operationOutcome(operationId, status);
    },
  };
}

/** The operation id from the body, else the last segment of `Operation-Location`. */
function readOperationId(body: Record<string, unknown> | undefined, headers: Headers): string | undefined {
  if (typeof body?.id === 'string' && body.id.length > 0) return body.id;
  const location = headers.get('operation-location');
  if (!location) return undefined;
  try {
    const segment = new URL(location).pathname.split('/').filter(Boolean).pop();
    return segment ? decodeURIComponent(segment) : undefined;
  } catch {
    return undefined;
  }
}

function operationOutcome(operationId: string, operation: Record<string, unknown> | undefined): DeliveryOutcome {
  switch (operation?.status) {
    case 'Failed': {
      const code = safeLabel(asRecord(operation.error)?.code) ?? 'Failed';
      return code === SUPPRESSED_RECIPIENT_CODE
        ? { result: 'hard_bounce', code }
        : { result: 'provider_error', code, transient: false };
    }
    case 'Canceled':
      return { result: 'provider_error', code: 'Canceled', transient: false };
    default:
      // Succeeded, or accepted and not finished within the polls: ACS has the message.
      return { result: 'success', providerMessageId: operationId };
  }
}
