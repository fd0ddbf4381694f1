import { randomUUID } from 'node:crypto';
import { RecipientScripts, startFakeHttpServer, type FakeRequest, type FakeResponse } from './fake-http';

/**
 * A local stand-in for the Expo push service (`POST /--/api/v2/push/send` and `/getReceipts`),
 * speaking its JSON: tickets `{status:'ok', id}` or `{status:'error', message, details:{error}}`,
 * receipts keyed by ticket id, request-level `{errors:[{code, message}]}` with 4xx/5xx, answers
 * gzipped when the client accepts it. Like the real service, error messages quote the token, so
 * tests prove adapters never pass them on.
 */

export type ExpoBehaviour =
  | 'ok'
  /** The ticket says `DeviceNotRegistered`. */
  | 'device_not_registered'
  /** The ticket is ok; its receipt says `DeviceNotRegistered`. */
  | 'device_not_registered_receipt'
  /** The ticket is ok; its receipt is not ready (absent from `getReceipts`). */
  | 'receipt_pending'
  /** The ticket is ok, with an id longer than any Expo has issued (200 characters). */
  | 'oversized_ticket_id'
  /** An error ticket with this `details.error` (`MessageRateExceeded`, `MessageTooBig`, `InvalidCredentials`). */
  | { ticketError: string }
  /** The whole request containing this token answers this status (e.g. 500, 429). */
  | { httpStatus: number; retryAfterSeconds?: number };

export interface FakeExpoOptions {
  /** When set, requests must carry `Authorization: Bearer <accessToken>` (enhanced push security). */
  accessToken?: string;
  /** Milliseconds before each answer (the benchmark's provider latency). */
  delayMs?: number;
}

export interface ExpoDelivery {
  to: string;
  title: unknown;
  body: unknown;
  data: unknown;
  ticketId: string;
}

export interface FakeExpoPush {
  /** The push API base, the value of `EXPO_PUSH_URL`. */
  url: string;
  /** Scripts what requests naming `token` get, in order; the last behaviour stays. */
  script(token: string, ...behaviours: ExpoBehaviour[]): void;
  /** Messages Expo accepted (an ok ticket), in arrival order. */
  readonly deliveries: ExpoDelivery[];
  deliveriesTo(token: string): ExpoDelivery[];
  /** Requests per route, including refused ones. */
  readonly requests: { send: number; getReceipts: number };
  /** Message count of each `send` request, in order (batching checks). */
  readonly batchSizes: number[];
  setDelay(ms: number): void;
  /** Forgets scripts, records and counts, and restores the start-up delay. */
  reset(): void;
  close(): Promise<void>;
}

const PUSH_PATH = '/--/api/v2/push';
const TOKEN = /^Expo(?:nent)?PushToken\[[^\]]+\]$/;

/** Starts a fake Expo push service on 127.0.0.1 and a free port. */
export async function startFakeExpoPush(options: FakeExpoOptions = {}): Promise<FakeExpoPush> {
  let delayMs = options.delayMs ?? 0;
  const scripts = new RecipientScripts<ExpoBehaviour>('ok');
  const deliveries: ExpoDelivery[] = [];
  const receipts = new Map<string, Record<string, unknown>>();
  const requests = { send: 0, getReceipts: 0 };
  const batchSizes: number[] = [];

  const refuse = (status: number, code: string, message: string, headers?: Record<string, string>): FakeResponse => ({
    status,
    ...(headers ? { headers } : {}),
    json: { errors: [{ code, message }] },
  });

  const authorised = (request: FakeRequest) =>
    options.accessToken === undefined || request.headers.authorization === `Bearer ${options.accessToken}`;

  const send = (request: FakeRequest): FakeResponse => {
    requests.send += 1;
    if (!authorised(request)) return refuse(401, 'UNAUTHORIZED', 'The bearer token is invalid.');
    const parsed = JSON.parse(request.body.toString('utf8')) as unknown;
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[];
    batchSizes.push(messages.length);
    if (messages.length > 100) {
      return refuse(400, 'PUSH_TOO_MANY_NOTIFICATIONS', 'You are trying to send more than 100 push notifications in one request.');
    }
    const tokens = messages.map((message) => String(message.to));
    const failing = tokens.map((token) => scripts.peek(token)).find((b) => typeof b === 'object' && 'httpStatus' in b);
    if (failing && typeof failing === 'object' && 'httpStatus' in failing) {
      for (const token of tokens) {
        const behaviour = scripts.peek(token);
        if (typeof behaviour === 'object' && 'httpStatus' in behaviour) scripts.advance(token);
      }
      return refuse(
        failing.httpStatus,
        failing.httpStatus === 429 ? 'TOO_MANY_REQUESTS' : 'INTERNAL_SERVER_ERROR',
        'The request failed.',
        failing.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(failing.retryAfterSeconds) },
      );
    }
    const data = messages.map((message, index) => {
      const token = tokens[index] as string;
      const behaviour = scripts.peek(token);
      scripts.advance(token);
      if (!TOKEN.test(token)) return errorTicket(token, 'DeviceNotRegistered', `"${token}" is not a valid Expo push token`);
      if (behaviour === 'device_not_registered') {
        return errorTicket(token, 'DeviceNotRegistered', `"${token}" is not a registered push notification recipient`);
      }
      if (typeof behaviour === 'object' && 'ticketError' in behaviour) {
        return errorTicket(token, behaviour.ticketError, `Could not deliver to "${token}".`);
      }
      const id = behaviour === 'oversized_ticket_id' ? `${randomUUID()}-${'x'.repeat(163)}` : randomUUID();
      deliveries.push({ to: token, title: message.title, body: message.body, data: message.data, ticketId: id });
      if (behaviour === 'device_not_registered_receipt') {
        receipts.set(id, errorTicket(token, 'DeviceNotRegistered', `"${token}" is not a registered push notification recipient`));
      } else if (behaviour !== 'receipt_pending') {
        receipts.set(id, { status: 'ok' });
      }
      return { status: 'ok', id };
    });
    return { status: 200, json: { data } };
  };

  const getReceipts = (request: FakeRequest): FakeResponse => {
    requests.getReceipts += 1;
    if (!authorised(request)) return refuse(401, 'UNAUTHORIZED', 'The bearer token is invalid.');
    const { ids } = JSON.parse(request.body.toString('utf8')) as { ids?: unknown };
    if (!Array.isArray(ids)) return refuse(400, 'VALIDATION_ERROR', '"ids" must be an array.');
    if (ids.length > 1000) return refuse(400, 'PUSH_TOO_MANY_RECEIPTS', 'You are trying to get more than 1000 receipts.');
    const data: Record<string, unknown> = {};
    for (const id of ids) {
      const receipt = receipts.get(String(id));
      if (receipt) data[String(id)] = receipt;
    }
    return { status: 200, json: { data } };
  };

  const server = await startFakeHttpServer((request) => {
    if (request.method === 'POST' && request.url === `${PUSH_PATH}/send`) return send(request);
    if (request.method === 'POST' && request.url === `${PUSH_PATH}/getReceipts`) return getReceipts(request);
    return { status: 404, json: { errors: [{ code: 'NOT_FOUND', message: 'Not found.' }] } };
  }, () => delayMs, { gzipResponses: true });

  return {
    url: `${server.origin}${PUSH_PATH}`,
    script: (token, ...behaviours) => scripts.set(token, behaviours),
    deliveries,
    deliveriesTo: (token) => deliveries.filter((delivery) => delivery.to === token),
    requests,
    batchSizes,
    setDelay: (ms) => {
      delayMs = ms;
    },
    reset: () => {
      delayMs = options.delayMs ?? 0;
      scripts.clear();
      deliveries.length = 0;
      receipts.clear();
      batchSizes.length = 0;
      requests.send = 0;
      requests.getReceipts = 0;
    },
    close: server.close,
  };
}

function errorTicket(token: string, error: string, message: string): Record<string, unknown> {
  return { status: 'error', message, details: { error, expoPushToken: token } };
}
