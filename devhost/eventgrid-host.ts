import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TriggerMetadata } from '@azure/functions';
import { errorFields, type Logger } from '../shared/logging/logger';
import type { FunctionRegistration } from './functions-core-shim';
import { readCappedBody, type HostEndpoint, type HostRequest } from './http-host';
import { HOST_PROBLEMS, writeProblem } from './http-response';
import { createInvocationContext, triggerOf, type HookRunner } from './invocation';
import { invocationTraceContext, traceIdOf } from './invocation-trace';

/*
 * The Functions host serves Event Grid triggers through the Event Grid extension
 * (azure-sdk-for-net, sdk/eventgrid/Microsoft.Azure.WebJobs.Extensions.EventGrid): the host's
 * `runtime/webhooks/{extensionName}/{*extra}` action (GET, POST, DELETE, OPTIONS) hands the request
 * to EventGridExtensionConfigProvider, which finds the function by `functionName`, and to
 * HttpRequestProcessor, which tells requests apart by method and the `aeg-event-type` header only
 * (never by content type or body shape). This module answers as they do; devhost/README.md lists
 * the source lines and where the answers differ (bodies of error answers).
 */

/** The real route: extension name and literals case-insensitive, extra segments allowed. */
const WEBHOOK_PATH = /^\/runtime\/webhooks\/eventgrid(?:\/|$)/i;
/** The verbs of the host's webhook action; ASP.NET Core routing answers others with 405. */
const WEBHOOK_METHODS = ['GET', 'POST', 'DELETE', 'OPTIONS'];
/** The origins the extension echoes in `Webhook-Allowed-Origin`; anything else gets the public cloud's. */
const EVENT_GRID_ORIGINS = new Set([
  'eventgrid.azure.net',
  'eventgrid.azure.us',
  'eventgrid.azure.eaglex.ic.gov',
  'eventgrid.azure.microsoft.scloud',
  'eventgrid.azure.cn',
]);
/** What the worker allows as a function name; anything else is not worth a log field. */
const FUNCTION_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,127}$/;

/** What the webhook needs: the app's registrations (it keeps the `eventGridTrigger` ones) and the host's parts. */
export interface EventGridWebhookOptions {
  registrations: readonly FunctionRegistration[];
  hooks: HookRunner;
  logger: Logger;
}

/** The `runtime/webhooks/eventgrid` endpoint, with the names of the functions it serves. */
export interface EventGridWebhook extends HostEndpoint {
  functionNames: readonly string[];
}

/**
 * Serves every `eventGridTrigger` registration at `/runtime/webhooks/eventgrid?functionName=<name>`
 * the way the Event Grid extension does: subscription validation, the CloudEvents `OPTIONS`
 * handshake, and one invocation per delivered event. Function keys (`code=`) are not checked.
 */
export function createEventGridWebhook(options: EventGridWebhookOptions): EventGridWebhook {
  const functions = new Map<string, FunctionRegistration>();
  for (const registration of options.registrations) {
    if (triggerOf(registration.metadata)?.type.toLowerCase() === 'eventgridtrigger') functions.set(registration.metadata.name, registration);
  }
  return {
    functionNames: [...functions.keys()],
    matches: (pathname) => WEBHOOK_PATH.test(pathname),
    handle: (req, res, request) => handleWebhook(req, res, request, functions, options),
  };
}

async function handleWebhook(
  req: IncomingMessage,
  res: ServerResponse,
  request: HostRequest,
  functions: ReadonlyMap<string, FunctionRegistration>,
  options: EventGridWebhookOptions,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  if (!WEBHOOK_METHODS.includes(method)) return writeProblem(res, HOST_PROBLEMS.methodNotAllowed, request.ids, { allow: WEBHOOK_METHODS.join(', ') });

  // The lookup comes first, for OPTIONS too: an unknown or missing name is 404 whatever the request.
  const functionName = functionNameOf(request.url);
  const registration = functionName === undefined ? undefined : functions.get(functionName);
  if (!registration) {
    const requested = functionName !== undefined && FUNCTION_NAME.test(functionName) ? functionName : null;
    options.logger.info({ requestedFunction: requested, available: [...functions.keys()] }, 'event grid webhook: function not found');
    return writeProblem(res, HOST_PROBLEMS.notFound, request.ids);
  }

  // CloudEvents abuse protection: any OPTIONS is granted (no WebHook-Allowed-Rate, as the extension).
  if (method === 'OPTIONS') return writeAnswer(res, 200, { 'webhook-allowed-origin': allowedOrigin(firstHeader(req, 'webhook-request-origin')) });

  const eventType = firstHeader(req, 'aeg-event-type')?.toLowerCase();
  // Unsubscribe is accepted without reading the body; a missing or other type (even SubscriptionDeletion) is 400.
  if (eventType === 'unsubscribe') return writeAnswer(res, 202);
  if (eventType !== 'subscriptionvalidation' && eventType !== 'notification') return writeProblem(res, HOST_PROBLEMS.badRequest, request.ids);

  const body = await readCappedBody(req, request.maxBodyBytes);
  if (body === 'aborted') return;
  if (body === 'too_large') return writeProblem(res, HOST_PROBLEMS.payloadTooLarge, request.ids, { connection: 'close' });
  const payload = parseJson(body);

  if (eventType === 'subscriptionvalidation') {
    const validationCode = validationCodeOf(payload);
    // The extension throws here (an unhandled exception in the real host); a 400 says the request was wrong.
    if (validationCode === undefined) return writeProblem(res, HOST_PROBLEMS.badRequest, request.ids);
    options.logger.info({ functionName: registration.metadata.name }, 'event grid subscription validation handshake');
    return writeAnswer(res, 200, { 'content-type': 'text/plain; charset=utf-8' }, JSON.stringify({ validationResponse: validationCode }));
  }

  // An array is a batch, an object one event (CloudEvents structured mode); anything else is refused.
  const events = Array.isArray(payload) ? payload : isJsonObject(payload) ? [payload] : undefined;
  if (!events) return writeProblem(res, HOST_PROBLEMS.badRequest, request.ids);
  // Like the extension: every event is dispatched at once, in order, and the answer waits for all of
  // them; one failure makes it 500 so Event Grid redelivers the whole request.
  const outcomes = await Promise.all(events.map((event) => invokeForEvent(event, registration, request, options)));
  if (outcomes.includes(false)) return writeProblem(res, HOST_PROBLEMS.internalError, request.ids);
  return writeAnswer(res, 202);
}

/** Runs one invocation; never throws: a failure is logged and reported as `false`. */
async function invokeForEvent(
  event: unknown,
  registration: FunctionRegistration,
  request: HostRequest,
  options: EventGridWebhookOptions,
): Promise<boolean> {
  const functionName = registration.metadata.name;
  const invocationId = randomUUID();
  // Each invocation is a child of the request, as the host's invocation activity is: same trace, new span.
  const traceContext = invocationTraceContext(request.traceContext.traceParent, request.traceContext.traceState);
  const isObject = isJsonObject(event);
  try {
    // The trigger binds a JObject; any other array element fails binding before the worker sees it.
    if (!isObject) throw new TypeError('An Event Grid event must be a JSON object.');
    const context = createInvocationContext({
      registration,
      invocationId,
      traceContext,
      triggerMetadata: eventTriggerMetadata(event, functionName),
      logger: options.logger,
    });
    await options.hooks.invoke(registration.handler, context, [event]);
    return true;
  } catch (error) {
    options.logger.error(
      { functionName, invocationId, traceId: traceIdOf(traceContext), errorCode: isObject ? 'internal_error' : 'invalid_event', ...errorFields(error) },
      'function failed',
    );
    return false;
  }
}

/**
 * `context.triggerMetadata` as the worker builds it from the host's binding data: the event's
 * `data` (the trigger's only binding-data field) and `sys`, keys camel-cased by the library.
 */
function eventTriggerMetadata(event: Record<string, unknown>, functionName: string): TriggerMetadata {
  const metadata: TriggerMetadata = {};
  if (event.data !== undefined && event.data !== null) {
    metadata.data = toCamelCaseValue(typeof event.data === 'string' ? tryJsonParse(event.data) : event.data);
  }
  metadata.sys = { methodName: functionName, utcNow: new Date().toISOString(), randGuid: randomUUID() };
  return metadata;
}

/**
 * The validation code: `[0].data.validationCode` of an Event Grid array, or `data.validationCode`
 * of a CloudEvent object whose `data` may be JSON text ("double-encoded", says the extension).
 */
function validationCodeOf(payload: unknown): string | undefined {
  let data: unknown;
  if (Array.isArray(payload)) {
    data = isJsonObject(payload[0]) ? payload[0].data : undefined;
  } else if (isJsonObject(payload)) {
    data = typeof payload.data === 'string' ? tryJsonParse(payload.data) : payload.data;
  }
  const code = isJsonObject(data) ? data.validationCode : undefined;
  return typeof code === 'string' || typeof code === 'number' ? String(code) : undefined;
}

/** `functionName` as HttpUtility.ParseQueryString reads it: key case-insensitive, repeats joined with ",". */
function functionNameOf(url: URL): string | undefined {
  const values = [...url.searchParams].filter(([key]) => key.toLowerCase() === 'functionname').map(([, value]) => value);
  const name = values.join(',');
  return name === '' ? undefined : name;
}

function allowedOrigin(requestOrigin: string | undefined): string {
  return requestOrigin !== undefined && EVENT_GRID_ORIGINS.has(requestOrigin) ? requestOrigin : 'eventgrid.azure.net';
}

/** The first value of a header, as the extension reads `aeg-event-type` and `WebHook-Request-Origin`. */
function firstHeader(req: IncomingMessage, name: string): string | undefined {
  return req.headersDistinct[name]?.[0];
}

/** Strict JSON (a UTF-8 BOM skipped, as .NET's ReadAsStringAsync does); `undefined` when it is not JSON. */
function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8').replace(/^\uFEFF/, '')) as unknown;
  } catch {
    return undefined;
  }
}

/** As the library reads string data: JSON when it parses, else the text. */
function tryJsonParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The library's camel-casing of trigger metadata: first letter of every key lower-cased, recursively. */
function toCamelCaseValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(toCamelCaseValue);
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key.charAt(0).toLowerCase() + key.slice(1), toCamelCaseValue(inner)]));
}

/** An answer of the extension's own (handshakes, 202): no body unless given. */
function writeAnswer(res: ServerResponse, status: number, headers: Record<string, string> = {}, body = ''): void {
  res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}
