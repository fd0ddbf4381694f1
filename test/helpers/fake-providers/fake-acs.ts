import { randomBytes, randomUUID } from 'node:crypto';
import { acsSignatureProblem } from './acs-signature-check';
import { RecipientScripts, startFakeHttpServer, type FakeRequest, type FakeResponse } from './fake-http';

/**
 * A local stand-in for Azure Communication Services' SMS (`POST /sms`, api-version 2021-03-07)
 * and e-mail (`POST /emails:send` and `GET /emails/operations/{id}`, api-version 2023-03-31) REST
 * APIs. Every request must carry a valid HMAC-SHA256 signature made with the connection string's
 * key, else 401 `Denied`, as ACS answers. Error messages quote the address, as ACS's may, so tests
 * prove adapters never pass them on.
 */

export type AcsSmsBehaviour =
  | 'ok'
  /** 202, but this recipient's result fails with this `httpStatusCode` (400: unusable number; 429; 500). */
  | { recipientStatus: number }
  /** The whole request answers this status. */
  | { httpStatus: number; retryAfterSeconds?: number };

export type AcsEmailBehaviour =
  | 'ok'
  /** Accepted, then the operation fails with `EmailDroppedAllRecipientsSuppressed` (a hard-bounced address). */
  | 'hard_bounce'
  /** 400 `BadRequest`: the address is not one. */
  | 'invalid_address'
  /** Accepted, then the operation fails with this error code. */
  | { operationError: string }
  /** The send request answers this status. */
  | { httpStatus: number; retryAfterSeconds?: number };

export interface FakeAcsOptions {
  /** Milliseconds before each answer (the benchmark's provider latency). */
  delayMs?: number;
  /** Status polls an accepted e-mail stays `Running` for before its end state. Default 1. */
  emailPollsUntilDone?: number;
  /** The `retry-after` (seconds) sent while an e-mail operation runs. Default 0. */
  emailRetryAfterSeconds?: number;
}

export interface SmsDelivery {
  from: unknown;
  to: string;
  message: unknown;
  messageId: string;
}

export interface EmailDelivery {
  senderAddress: unknown;
  to: string;
  subject: unknown;
  plainText: unknown;
  operationId: string;
}

export interface FakeAcs {
  /** The resource endpoint (`http://127.0.0.1:<port>`). */
  endpoint: string;
  /** `endpoint=…;accesskey=…` for `ACS_CONNECTION_STRING`. */
  connectionString: string;
  scriptSms(phone: string, ...behaviours: AcsSmsBehaviour[]): void;
  scriptEmail(address: string, ...behaviours: AcsEmailBehaviour[]): void;
  /** SMS the service accepted for a recipient (`successful: true`). */
  readonly smsDeliveries: SmsDelivery[];
  /** E-mails accepted that end `Succeeded`. */
  readonly emailDeliveries: EmailDelivery[];
  smsTo(phone: string): SmsDelivery[];
  emailsTo(address: string): EmailDelivery[];
  readonly requests: { sms: number; emailSend: number; emailStatus: number; rejectedSignatures: number };
  setDelay(ms: number): void;
  /** Forgets scripts, records and counts, and restores the start-up delay. */
  reset(): void;
  close(): Promise<void>;
}

const SMS_API_VERSIONS = new Set(['2021-03-07']);
const EMAIL_API_VERSIONS = new Set(['2023-03-31']);
const E164 = /^\+[1-9]\d{6,14}$/;
const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

interface Operation {
  id: string;
  pollsLeft: number;
  end: { status: 'Succeeded' } | { status: 'Failed'; code: string; message: string };
}

/** Starts a fake ACS resource on 127.0.0.1 and a free port, with a fresh random access key. */
export async function startFakeAcs(options: FakeAcsOptions = {}): Promise<FakeAcs> {
  let delayMs = options.delayMs ?? 0;
  const accessKey = randomBytes(32);
  const smsScripts = new RecipientScripts<AcsSmsBehaviour>('ok');
  const emailScripts = new RecipientScripts<AcsEmailBehaviour>('ok');
  const smsDeliveries: SmsDelivery[] = [];
  const emailDeliveries: EmailDelivery[] = [];
  const operations = new Map<string, Operation>();
  const requests = { sms: 0, emailSend: 0, emailStatus: 0, rejectedSignatures: 0 };
  let origin = '';

  const error = (status: number, code: string, message: string, headers?: Record<string, string>): FakeResponse => ({
    status,
    headers: { 'x-ms-error-code': code, ...headers },
    json: { error: { code, message } },
  });
  const statusError = (status: number, retryAfterSeconds?: number) =>
    error(
      status,
      status === 429 ? 'TooManyRequests' : status >= 500 ? 'InternalServerError' : 'BadRequest',
      'The request failed.',
      retryAfterSeconds === undefined ? undefined : { 'retry-after': String(retryAfterSeconds) },
    );

  const sendSms = (body: Record<string, unknown>): FakeResponse => {
    requests.sms += 1;
    const recipients = body.smsRecipients;
    if (typeof body.from !== 'string' || typeof body.message !== 'string' || !Array.isArray(recipients)) {
      return error(400, 'BadRequest', 'from, smsRecipients and message are required.');
    }
    if (recipients.length < 1 || recipients.length > 100) return error(400, 'BadRequest', 'Between 1 and 100 recipients.');
    const phones = recipients.map((recipient) => String((recipient as { to?: unknown }).to));
    for (const phone of phones) {
      const behaviour = smsScripts.peek(phone);
      if (typeof behaviour === 'object' && 'httpStatus' in behaviour) {
        smsScripts.advance(phone);
        return statusError(behaviour.httpStatus, behaviour.retryAfterSeconds);
      }
    }
    const value = phones.map((to) => {
      const behaviour = smsScripts.peek(to);
      smsScripts.advance(to);
      if (!E164.test(to)) {
        return { to, httpStatusCode: 400, successful: false, errorMessage: `Invalid To phone number format: ${to}` };
      }
      if (typeof behaviour === 'object' && 'recipientStatus' in behaviour) {
        return { to, httpStatusCode: behaviour.recipientStatus, successful: false, errorMessage: `Message to ${to} failed.` };
      }
      const messageId = `Outgoing_${randomUUID().replaceAll('-', '')}_noam`;
      smsDeliveries.push({ from: body.from, to, message: body.message, messageId });
      return { to, messageId, httpStatusCode: 202, successful: true };
    });
    return { status: 202, json: { value } };
  };

  const operationBody = (operation: Operation) =>
    operation.pollsLeft > 0
      ? { id: operation.id, status: 'Running' }
      : operation.end.status === 'Succeeded'
        ? { id: operation.id, status: 'Succeeded' }
        : { id: operation.id, status: 'Failed', error: { code: operation.end.code, message: operation.end.message } };

  const runningHeaders = (operation: Operation): Record<string, string> =>
    operation.pollsLeft > 0 ? { 'retry-after': String(options.emailRetryAfterSeconds ?? 0) } : {};

  const sendEmail = (body: Record<string, unknown>): FakeResponse => {
    requests.emailSend += 1;
    const to = (body.recipients as { to?: unknown } | undefined)?.to;
    const content = body.content as { subject?: unknown; plainText?: unknown } | undefined;
    if (typeof body.senderAddress !== 'string' || !Array.isArray(to) || to.length === 0 || typeof content?.subject !== 'string') {
      return error(400, 'BadRequest', 'senderAddress, recipients.to and content.subject are required.');
    }
    const address = String((to[0] as { address?: unknown }).address);
    const behaviour = emailScripts.peek(address);
    emailScripts.advance(address);
    if (typeof behaviour === 'object' && 'httpStatus' in behaviour) {
      return statusError(behaviour.httpStatus, behaviour.retryAfterSeconds);
    }
    if (behaviour === 'invalid_address' || !EMAIL_ADDRESS.test(address)) {
      return error(400, 'BadRequest', `Invalid format for email address: ${address}`);
    }
    const id = randomUUID();
    const end: Operation['end'] =
      behaviour === 'hard_bounce'
        ? { status: 'Failed', code: 'EmailDroppedAllRecipientsSuppressed', message: `Message dropped because all recipients were suppressed: ${address}` }
        : typeof behaviour === 'object'
          ? { status: 'Failed', code: behaviour.operationError, message: `Sending to ${address} failed.` }
          : { status: 'Succeeded' };
    const operation: Operation = { id, pollsLeft: options.emailPollsUntilDone ?? 1, end };
    operations.set(id, operation);
    if (end.status === 'Succeeded') {
      emailDeliveries.push({ senderAddress: body.senderAddress, to: address, subject: content.subject, plainText: content.plainText, operationId: id });
    }
    return {
      status: 202,
      headers: {
        'operation-location': `${origin}/emails/operations/${id}?api-version=2023-03-31`,
        ...runningHeaders(operation),
      },
      json: operationBody(operation),
    };
  };

  const emailStatus = (id: string): FakeResponse => {
    requests.emailStatus += 1;
    const operation = operations.get(id);
    if (!operation) return error(404, 'NotFound', 'The operation was not found.');
    if (operation.pollsLeft > 0) operation.pollsLeft -= 1;
    return { status: 200, headers: runningHeaders(operation), json: operationBody(operation) };
  };

  const handle = (request: FakeRequest): FakeResponse => {
    if (acsSignatureProblem(request, accessKey) !== undefined) {
      requests.rejectedSignatures += 1;
      return error(401, 'Denied', 'Denied by the resource provider.');
    }
    const url = new URL(request.url, 'http://fake');
    const apiVersion = url.searchParams.get('api-version') ?? '';
    const json = (): Record<string, unknown> => JSON.parse(request.body.toString('utf8') || '{}') as Record<string, unknown>;
    if (request.method === 'POST' && url.pathname === '/sms') {
      return SMS_API_VERSIONS.has(apiVersion) ? sendSms(json()) : error(400, 'UnsupportedApiVersion', 'Unsupported api-version.');
    }
    if (request.method === 'POST' && url.pathname === '/emails:send') {
      return EMAIL_API_VERSIONS.has(apiVersion) ? sendEmail(json()) : error(400, 'UnsupportedApiVersion', 'Unsupported api-version.');
    }
    const statusPath = /^\/emails\/operations\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'GET' && statusPath) {
      return EMAIL_API_VERSIONS.has(apiVersion)
        ? emailStatus(decodeURIComponent(statusPath[1] ?? ''))
        : error(400, 'UnsupportedApiVersion', 'Unsupported api-version.');
    }
    return error(404, 'NotFound', 'Not found.');
  };

  const server = await startFakeHttpServer(handle, () => delayMs);
  origin = server.origin;

  return {
    endpoint: origin,
    connectionString: `endpoint=${origin}/;accesskey=${accessKey.toString('base64')}`,
    scriptSms: (phone, ...behaviours) => smsScripts.set(phone, behaviours),
    scriptEmail: (address, ...behaviours) => emailScripts.set(address, behaviours),
    smsDeliveries,
    emailDeliveries,
    smsTo: (phone) => smsDeliveries.filter((delivery) => delivery.to === phone),
    emailsTo: (address) => emailDeliveries.filter((delivery) => delivery.to === address),
    requests,
    setDelay: (ms) => {
      delayMs = ms;
    },
    reset: () => {
      delayMs = options.delayMs ?? 0;
      smsScripts.clear();
      emailScripts.clear();
      smsDeliveries.length = 0;
      emailDeliveries.length = 0;
      operations.clear();
      Object.assign(requests, { sms: 0, emailSend: 0, emailStatus: 0, rejectedSignatures: 0 });
    },
    close: server.close,
  };
}
