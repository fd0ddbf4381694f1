import { randomBytes, randomUUID } from 'node:crypto';
import { acsSignatureProblem } from './acs-signature-check';
import { RepeatabilityLedger } from './acs-repeatability';
import { RecipientScripts, startFakeHttpServer, type FakeRequest, type FakeResponse } from './fake-http';

/**
 * A local stand-in for Azure Communication Services' SMS (`POST /sms`, api-version 2021-03-07)
 * and e-mail (`POST /emails:send`, `GET /emails/operations/{id}`, api-versions 2023-03-31 and 2025-09-01) REST APIs,
 * as the official SDKs call them. Every request must authenticate as ACS checks it: an HMAC-SHA256
 * signature made with the connection string's key, or (`bearerTokens`) an Entra ID bearer token
 * issued for `https://communication.azure.com` — else 401 `Denied`. Repeatable requests are honoured
 * as ACS documents them: an SMS recipient's `repeatabilityRequestId` / `repeatabilityFirstSent`, the
 * e-mail send's `Repeatability-Request-Id` / `Repeatability-First-Sent` headers; a repeat within 5
 * minutes gets the first answer and sends nothing. Error messages quote the address, as ACS's may,
 * so tests prove adapters never pass them on.
 */

export type AcsSmsBehaviour =
  | 'ok'
  /** 202, but this recipient's result fails with this `httpStatusCode` (400: unusable number; 429; 500). */
  | { recipientStatus: number }
  /** The whole request answers this status. */
  | { httpStatus: number; retryAfterSeconds?: number }
  /** The message is sent, then the connection drops before the answer (a repeat must not send again). */
  | 'lost_answer';

export type AcsEmailBehaviour =
  | 'ok'
  /** Accepted; the operation then fails with `EmailDroppedAllRecipientsSuppressed` (an address ACS suppresses). */
  | 'hard_bounce'
  /** 400 `BadRequest`: the address is not one. */
  | 'invalid_address'
  /** Accepted, then the operation fails with this error code. */
  | { operationError: string }
  /** The send request answers this status. */
  | { httpStatus: number; retryAfterSeconds?: number }
  /** Accepted, then the connection drops before the answer. */
  | 'lost_answer'
  /**
   * No answer at all, and nothing sent: the request is held open until the client gives up (or
   * `releaseHung`, `reset`, `close`), as a provider that hangs. A later repeat of it is a new send.
   */
  | 'hang';

export interface FakeAcsOptions {
  /** Milliseconds before each answer (the benchmark's provider latency). */
  delayMs?: number;
  /** Status polls an accepted e-mail stays `Running` for before its end state. Default 1. */
  emailPollsUntilDone?: number;
  /** The `retry-after` (seconds) sent while an e-mail operation runs (ACS documents 20 on the first status check). */
  emailRetryAfterSeconds?: number;
  /** HTTPS with this key pair (the bearer path: the SDK sends tokens over TLS only). */
  tls?: { key: Buffer; cert: Buffer };
  /** Bearer tokens accepted besides the HMAC signature (the fake managed identity's). */
  bearerTokens?: () => ReadonlySet<string>;
}

export interface SmsDelivery {
  from: unknown;
  to: string;
  message: unknown;
  messageId: string;
  enableDeliveryReport: unknown;
  tag: unknown;
}

export interface EmailDelivery {
  senderAddress: unknown;
  to: string;
  subject: unknown;
  plainText: unknown;
  operationId: string;
  /** The request's `Repeatability-Request-Id` and `Repeatability-First-Sent`, as sent. */
  repeatabilityRequestId: string | undefined;
  repeatabilityFirstSent: string | undefined;
  /** The end state of its operation. */
  end: 'Succeeded' | 'Failed';
}

export interface FakeAcs {
  /** The resource endpoint (`http(s)://127.0.0.1:<port>`). */
  endpoint: string;
  /** `endpoint=…;accesskey=…` for `ACS_CONNECTION_STRING`. */
  connectionString: string;
  scriptSms(phone: string, ...behaviours: AcsSmsBehaviour[]): void;
  scriptEmail(address: string, ...behaviours: AcsEmailBehaviour[]): void;
  /** SMS the service accepted for a recipient (`successful: true`), each once. */
  readonly smsDeliveries: SmsDelivery[];
  /** E-mails accepted (every operation started), each once. */
  readonly emailDeliveries: EmailDelivery[];
  smsTo(phone: string): SmsDelivery[];
  emailsTo(address: string): EmailDelivery[];
  readonly requests: {
    sms: number;
    emailSend: number;
    emailStatus: number;
    rejectedSignatures: number;
    bearer: number;
    /** Requests answered from the repeatability ledger (nothing sent again). */
    repeats: number;
    /** E-mail sends held open by a `hang` script (counted in `emailSend` too). */
    emailHung: number;
  };
  /** E-mail sends held open right now (`hang`). */
  readonly hanging: number;
  /** Ends every held request by dropping its connection (nothing was sent). */
  releaseHung(): void;
  setDelay(ms: number): void;
  /** Forgets scripts, records and counts, and restores the start-up delay. */
  reset(): void;
  close(): Promise<void>;
}

const SMS_API_VERSIONS = new Set(['2021-03-07']);
/** 2023-03-31: the first GA version; 2025-09-01: what `@azure/communication-email` 1.1 speaks. */
const EMAIL_API_VERSIONS = new Set(['2023-03-31', '2025-09-01']);
const E164 = /^\+[1-9]\d{6,14}$/;
const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
  const smsRepeats = new RepeatabilityLedger<Record<string, unknown>>();
  const emailRepeats = new RepeatabilityLedger<FakeResponse>();
  const requests = { sms: 0, emailSend: 0, emailStatus: 0, rejectedSignatures: 0, bearer: 0, repeats: 0, emailHung: 0 };
  const hung = new Set<() => void>();
  const releaseHung = (): void => {
    for (const release of [...hung]) release();
  };
  const hang = (): Promise<FakeResponse> => {
    requests.emailHung += 1;
    return new Promise((resolve) => {
      const release = (): void => {
        hung.delete(release);
        resolve({ status: 503, destroy: true });
      };
      hung.add(release);
    });
  };
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

  const sendSms = (body: Record<string, unknown>, bodyText: string): FakeResponse => {
    requests.sms += 1;
    const recipients = body.smsRecipients;
    const sendOptions = (body.smsSendOptions ?? {}) as Record<string, unknown>;
    if (typeof body.from !== 'string' || typeof body.message !== 'string' || !Array.isArray(recipients)) {
      return error(400, 'BadRequest', 'from, smsRecipients and message are required.');
    }
    if (recipients.length < 1 || recipients.length > 100) return error(400, 'BadRequest', 'Between 1 and 100 recipients.');
    if (typeof sendOptions.enableDeliveryReport !== 'boolean') return error(400, 'BadRequest', 'smsSendOptions.enableDeliveryReport is required.');
    let lostAnswer = false;
    for (const recipient of recipients as Record<string, unknown>[]) {
      const behaviour = smsScripts.peek(String(recipient.to));
      if (typeof behaviour === 'object' && 'httpStatus' in behaviour && smsRepeats.lookup(recipient, bodyText) === undefined) {
        smsScripts.advance(String(recipient.to));
        return statusError(behaviour.httpStatus, behaviour.retryAfterSeconds);
      }
    }
    const value = (recipients as Record<string, unknown>[]).map((recipient) => {
      const to = String(recipient.to);
      const repeat = smsRepeats.lookup(recipient, bodyText);
      if (repeat?.kind === 'refused') return { to, httpStatusCode: repeat.status, successful: false, repeatabilityResult: 'rejected' };
      if (repeat?.kind === 'repeat') {
        requests.repeats += 1;
        return repeat.answer;
      }
      const behaviour = smsScripts.peek(to);
      smsScripts.advance(to);
      let item: Record<string, unknown>;
      if (!E164.test(to)) {
        item = { to, httpStatusCode: 400, successful: false, errorMessage: `Invalid To phone number format: ${to}` };
      } else if (typeof behaviour === 'object' && 'recipientStatus' in behaviour) {
        item = { to, httpStatusCode: behaviour.recipientStatus, successful: false, errorMessage: `Message to ${to} failed.` };
      } else {
        const messageId = `Outgoing_${randomUUID().replaceAll('-', '')}_noam`;
        smsDeliveries.push({ from: body.from, to, message: body.message, messageId, enableDeliveryReport: sendOptions.enableDeliveryReport, tag: sendOptions.tag });
        item = { to, messageId, httpStatusCode: 202, successful: true };
        if (behaviour === 'lost_answer') lostAnswer = true;
      }
      const answer = { ...item, ...(recipient.repeatabilityRequestId ? { repeatabilityResult: 'accepted' } : {}) };
      // As for e-mail: a transient failure (429, 5xx) is not tracked, so a repeat of it is executed.
      const status = Number(item.httpStatusCode);
      if (status !== 429 && status < 500) smsRepeats.remember(recipient, bodyText, answer);
      return answer;
    });
    return lostAnswer ? { status: 202, destroy: true } : { status: 202, json: { value } };
  };

  const operationBody = (operation: Operation) =>
    operation.pollsLeft > 0
      ? { id: operation.id, status: 'Running' }
      : operation.end.status === 'Succeeded'
        ? { id: operation.id, status: 'Succeeded' }
        : { id: operation.id, status: 'Failed', error: { code: operation.end.code, message: operation.end.message } };

  const runningHeaders = (operation: Operation): Record<string, string> =>
    operation.pollsLeft > 0 ? { 'retry-after': String(options.emailRetryAfterSeconds ?? 0) } : {};

  const sendEmail = (request: FakeRequest, body: Record<string, unknown>): FakeResponse => {
    requests.emailSend += 1;
    const repeatHeaders = { repeatabilityRequestId: header(request, 'repeatability-request-id'), repeatabilityFirstSent: header(request, 'repeatability-first-sent') };
    // ACS documents both headers as mandatory for the e-mail send.
    if (repeatHeaders.repeatabilityRequestId === undefined || repeatHeaders.repeatabilityFirstSent === undefined) {
      return error(400, 'BadRequest', 'Repeatability-Request-Id and Repeatability-First-Sent are required.');
    }
    const repeat = emailRepeats.lookup(repeatHeaders, request.body.toString('utf8'));
    if (repeat?.kind === 'refused') return error(repeat.status, 'PreconditionFailed', 'Repeatability-First-Sent is outside the tracked window.');
    if (repeat?.kind === 'repeat') {
      requests.repeats += 1;
      return repeat.answer;
    }
    const answer = newEmail(request, body);
    // A 5xx is not remembered: ACS executes the repeat again (its documented table).
    if (answer.status !== 429 && answer.status < 500) emailRepeats.remember(repeatHeaders, request.body.toString('utf8'), { ...answer, destroy: false });
    return answer;
  };

  const newEmail = (request: FakeRequest, body: Record<string, unknown>): FakeResponse => {
    const to = (body.recipients as { to?: unknown } | undefined)?.to;
    const content = body.content as { subject?: unknown; plainText?: unknown } | undefined;
    if (typeof body.senderAddress !== 'string' || !Array.isArray(to) || to.length === 0 || typeof content?.subject !== 'string') {
      return error(400, 'BadRequest', 'senderAddress, recipients.to and content.subject are required.');
    }
    const requestedId = header(request, 'operation-id');
    if (requestedId !== undefined && !UUID.test(requestedId)) return error(400, 'BadRequest', 'Operation-Id must be a GUID.');
    const address = String((to[0] as { address?: unknown }).address);
    const behaviour = emailScripts.peek(address);
    emailScripts.advance(address);
    if (typeof behaviour === 'object' && 'httpStatus' in behaviour) return statusError(behaviour.httpStatus, behaviour.retryAfterSeconds);
    if (behaviour === 'invalid_address' || !EMAIL_ADDRESS.test(address)) {
      return error(400, 'BadRequest', `Invalid format for email address: ${address}`);
    }
    const id = requestedId ?? randomUUID();
    if (operations.has(id)) return error(409, 'Conflict', 'An operation with this Operation-Id exists.');
    const end: Operation['end'] =
      behaviour === 'hard_bounce'
        ? { status: 'Failed', code: 'EmailDroppedAllRecipientsSuppressed', message: `Message dropped because all recipients were suppressed: ${address}` }
        : typeof behaviour === 'object'
          ? { status: 'Failed', code: behaviour.operationError, message: `Sending to ${address} failed.` }
          : { status: 'Succeeded' };
    const operation: Operation = { id, pollsLeft: options.emailPollsUntilDone ?? 1, end };
    operations.set(id, operation);
    emailDeliveries.push({
      senderAddress: body.senderAddress,
      to: address,
      subject: content.subject,
      plainText: content.plainText,
      operationId: id,
      repeatabilityRequestId: header(request, 'repeatability-request-id'),
      repeatabilityFirstSent: header(request, 'repeatability-first-sent'),
      end: end.status,
    });
    return {
      status: 202,
      headers: { 'operation-location': `${origin}/emails/operations/${id}?api-version=${new URL(request.url, 'http://fake').searchParams.get('api-version') ?? ''}`, ...runningHeaders(operation) },
      json: operationBody(operation),
      destroy: behaviour === 'lost_answer',
    };
  };

  const emailStatus = (id: string): FakeResponse => {
    requests.emailStatus += 1;
    const operation = operations.get(id);
    if (!operation) return error(404, 'NotFound', 'The operation was not found.');
    if (operation.pollsLeft > 0) operation.pollsLeft -= 1;
    return { status: 200, headers: runningHeaders(operation), json: operationBody(operation) };
  };

  const authenticated = (request: FakeRequest): boolean => {
    const authorization = header(request, 'authorization') ?? '';
    if (authorization.startsWith('Bearer ')) {
      const ok = options.bearerTokens?.().has(authorization.slice('Bearer '.length)) ?? false;
      if (ok) requests.bearer += 1;
      return ok;
    }
    return acsSignatureProblem(request, accessKey) === undefined;
  };

  const handle = (request: FakeRequest): FakeResponse | Promise<FakeResponse> => {
    if (!authenticated(request)) {
      requests.rejectedSignatures += 1;
      return error(401, 'Denied', 'Denied by the resource provider.');
    }
    const url = new URL(request.url, 'http://fake');
    const apiVersion = url.searchParams.get('api-version') ?? '';
    const bodyText = request.body.toString('utf8');
    const json = (): Record<string, unknown> => JSON.parse(bodyText || '{}') as Record<string, unknown>;
    const unsupported = () => error(400, 'UnsupportedApiVersion', 'Unsupported api-version.');
    if (request.method === 'POST' && url.pathname === '/sms') return SMS_API_VERSIONS.has(apiVersion) ? sendSms(json(), bodyText) : unsupported();
    if (request.method === 'POST' && url.pathname === '/emails:send') {
      if (!EMAIL_API_VERSIONS.has(apiVersion)) return unsupported();
      const body = json();
      const to = (body.recipients as { to?: { address?: unknown }[] } | undefined)?.to?.[0]?.address;
      if (typeof to === 'string' && emailScripts.peek(to) === 'hang') {
        requests.emailSend += 1;
        return hang();
      }
      return sendEmail(request, body);
    }
    const statusPath = /^\/emails\/operations\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'GET' && statusPath) {
      return EMAIL_API_VERSIONS.has(apiVersion) ? emailStatus(decodeURIComponent(statusPath[1] ?? '')) : unsupported();
    }
    return error(404, 'NotFound', 'Not found.');
  };

  const server = await startFakeHttpServer(handle, () => delayMs, options.tls ? { tls: options.tls } : {});
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
    get hanging() {
      return hung.size;
    },
    releaseHung,
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
      smsRepeats.clear();
      emailRepeats.clear();
      releaseHung();
      Object.assign(requests, { sms: 0, emailSend: 0, emailStatus: 0, rejectedSignatures: 0, bearer: 0, repeats: 0, emailHung: 0 });
    },
    close: async () => {
      releaseHung();
      await server.close();
    },
  };
}

function header(request: FakeRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
