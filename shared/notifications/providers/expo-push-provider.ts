import type { ShutdownSignals } from '../../lifecycle/shutdown';
import { systemClock, type Clock } from '../../ports/clock';
import type { DeliveryOutcome, PushMessage, PushProvider } from '../../ports/delivery';
import {
  asRecord,
  DEFAULT_REQUEST_TIMEOUT_MS,
  fetchClient,
  httpFailure,
  parseJson,
  safeLabel,
  sendHttpRequest,
  shutdownOutcome,
  type Fetch,
  type ProviderError,
} from './provider-http';
import { nodeHttpClient } from './node-http-client';

/**
 * Push through the Expo push service's HTTP API (`POST {base}/send`, `POST {base}/getReceipts`).
 *
 * Mapping (a ticket or a receipt, by `details.error`):
 * - `status: "ok"` → success, `providerMessageId` = the ticket id (the receipt id) when it is one
 *   (a UUID-like id of at most 128 characters);
 * - `DeviceNotRegistered` → `stale_token` (the app was uninstalled or the token revoked);
 * - `MessageRateExceeded` → transient `provider_error` (too many messages to one device);
 * - anything else (`MessageTooBig`, `InvalidCredentials`, `MismatchSenderId`, …) → permanent `provider_error`.
 * Whole request: 408/429/5xx and network failures → transient for every message of the batch,
 * other 4xx → permanent (the body's `errors[0].code` when it names one, else `http_<status>`).
 * A token that is not an Expo push token is `stale_token` (`malformed_token`) without being sent,
 * so one bad row cannot make Expo refuse the whole batch.
 */

let gzipSync: typeof import('node:zlib').gzipSync | undefined;

/**
 * `zlib` on first use: an instance that never pushes (an API instance) does not load it at start.
 * Synchronous: a request's body (100 messages, some 20 KB) takes a few hundredths of a millisecond,
 * where the asynchronous call's stream and thread-pool round trip cost the event loop ten times that.
 */
function gzipText(text: string): Buffer {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  gzipSync ??= (require('node:zlib') as typeof import('node:zlib')).gzipSync;
  return gzipSync(text, GZIP_OPTIONS);
}

/**
 * The fastest level with a 4 KB window and small tables: 100 messages repeat the same text and
 * fields every few hundred bytes, so the body is as small as at the default settings, in half the
 * time (most of it setting up the compressor, which allocates a quarter of the memory). Any gzip
 * reader takes a stream with a smaller window.
 */
const GZIP_OPTIONS = { level: 1, memLevel: 4, windowBits: 12 } as const;

/** Expo's limit of messages per `send` request. */
export const EXPO_MAX_BATCH = 100;
/** Receipt ids per `getReceipts` request (the limit Expo's own SDK uses). */
export const EXPO_RECEIPT_BATCH = 300;
/** Bodies above this are gzipped, as Expo's SDK does. */
const COMPRESS_ABOVE_BYTES = 1024;

const EXPO_PUSH_TOKEN = /^Expo(?:nent)?PushToken\[[^\]\s]+\]$/;

/** The longest ticket id kept (the `PushTickets.ticketId` column; Expo's ids are UUIDs). */
export const MAX_TICKET_ID_LENGTH = 128;

/**
 * A ticket id the ledger and the receipt check can keep: Expo's are UUIDs. Anything else (too
 * long for `PushTickets.ticketId`, odd characters) is dropped, and the message counts as sent
 * without a receipt to read: SQL Server would refuse the row, SQLite would keep it.
 */
const TICKET_ID = new RegExp(`^[A-Za-z0-9._:-]{1,${MAX_TICKET_ID_LENGTH}}$`);

export interface ExpoPushProviderOptions {
  /** The push API base, `config.notifications.expoPushUrl` (e.g. `https://exp.host/--/api/v2/push`). */
  baseUrl: string;
  /** `EXPO_ACCESS_TOKEN`, sent as a bearer token when the project has enhanced push security. */
  accessToken?: string | undefined;
  /** Tests: requests go through this `fetch` instead of `node:http` (`nodeHttpClient`). */
  fetch?: Fetch;
  requestTimeoutMs?: number;
  clock?: Clock;
  /** The process's shutdown: no request starts once it is stopping; requests in flight end at its deadline. */
  shutdown?: ShutdownSignals;
}

export interface ExpoPushProvider extends PushProvider {
  checkReceipts(ticketIds: readonly string[]): Promise<Map<string, DeliveryOutcome>>;
}

/** True when `token` has the shape of an Expo push token (`ExponentPushToken[…]` or `ExpoPushToken[…]`). */
export function isExpoPushToken(token: string): boolean {
  return EXPO_PUSH_TOKEN.test(token);
}

/**
 * Creates the Expo push adapter.
 * @throws RangeError from `send` when given more than 100 messages (a bug of the caller).
 */
export function createExpoPushProvider(options: ExpoPushProviderOptions): ExpoPushProvider {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const client = options.fetch ? fetchClient(options.fetch) : nodeHttpClient();
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const clock = options.clock ?? systemClock;

  const post = async (path: string, payload: unknown) => {
    const json = JSON.stringify(payload);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'accept-encoding': 'gzip, deflate',
      'content-type': 'application/json',
    };
    if (options.accessToken) headers.authorization = `Bearer ${options.accessToken}`;
    let body: string | Uint8Array = json;
    if (Buffer.byteLength(json) > COMPRESS_ABOVE_BYTES) {
      body = gzipText(json);
      headers['content-encoding'] = 'gzip';
    }
    return sendHttpRequest(client, `${baseUrl}${path}`, { method: 'POST', headers, body }, timeoutMs, options.shutdown?.deadline);
  };

  /** The body's `data`, or the `provider_error` that stands for the whole request. */
  const readData = async (path: string, payload: unknown): Promise<{ data: unknown } | { failure: ProviderError }> => {
    if (options.shutdown?.stopping.aborted) return { failure: shutdownOutcome() };
    const attempt = await post(path, payload);
    if (!attempt.ok) return { failure: attempt.outcome };
    const body = asRecord(parseJson(attempt.answer.text));
    const firstError = Array.isArray(body?.errors) ? asRecord(body.errors[0]) : undefined;
    if (attempt.answer.status !== 200 || firstError) {
      return { failure: httpFailure(attempt.answer, firstError?.code, clock.now()) };
    }
    // A 200 we cannot read may still have been sent: not worth a duplicate, so not transient.
    if (body === undefined) return { failure: { result: 'provider_error', code: 'bad_response', transient: false } };
    return { data: body.data };
  };

  return {
    async send(messages) {
      if (messages.length > EXPO_MAX_BATCH) {
        throw new RangeError(`Expo accepts at most ${EXPO_MAX_BATCH} messages per request`);
      }
      const outcomes: (DeliveryOutcome | undefined)[] = messages.map((message) =>
        isExpoPushToken(message.to) ? undefined : { result: 'stale_token', code: 'malformed_token' },
      );
      const toSend = messages.filter((_, index) => outcomes[index] === undefined);
      if (toSend.length === 0) return outcomes as DeliveryOutcome[];

      const answer = await readData('/send', toSend.map(expoMessage));
      let tickets: readonly DeliveryOutcome[];
      if ('failure' in answer) {
        tickets = toSend.map(() => answer.failure);
      } else if (Array.isArray(answer.data) && answer.data.length === toSend.length) {
        tickets = answer.data.map(ticketOutcome);
      } else {
        tickets = toSend.map(() => ({ result: 'provider_error', code: 'bad_response', transient: false }));
      }
      let next = 0;
      return outcomes.map((outcome) => outcome ?? (tickets[next++] as DeliveryOutcome));
    },

    async checkReceipts(ticketIds) {
      const receipts = new Map<string, DeliveryOutcome>();
      for (let start = 0; start < ticketIds.length; start += EXPO_RECEIPT_BATCH) {
        const ids = ticketIds.slice(start, start + EXPO_RECEIPT_BATCH);
        const answer = await readData('/getReceipts', { ids });
        if ('failure' in answer) {
          for (const id of ids) receipts.set(id, answer.failure);
          continue;
        }
        const byId = asRecord(answer.data) ?? {};
        for (const id of ids) {
          // Expo leaves out receipts it has not made yet; they are read again later.
          if (Object.hasOwn(byId, id)) receipts.set(id, ticketOutcome(byId[id]));
        }
      }
      return receipts;
    },
  };
}

function expoMessage(message: PushMessage): Record<string, unknown> {
  return { to: message.to, title: message.title, body: message.body, data: message.data };
}

/** One ticket or receipt as an outcome; `message` is ignored on purpose: it quotes the token. */
function ticketOutcome(value: unknown): DeliveryOutcome {
  const ticket = asRecord(value);
  if (ticket?.status === 'ok') {
    const id = typeof ticket.id === 'string' && TICKET_ID.test(ticket.id) ? ticket.id : undefined;
    return id === undefined ? { result: 'success' } : { result: 'success', providerMessageId: id };
  }
  const code = safeLabel(asRecord(ticket?.details)?.error) ?? 'unknown_error';
  if (ticket?.status !== 'error') return { result: 'provider_error', code: 'bad_response', transient: false };
  if (code === 'DeviceNotRegistered') return { result: 'stale_token', code };
  return { result: 'provider_error', code, transient: code === 'MessageRateExceeded' };
}
