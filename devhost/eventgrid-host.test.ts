import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseLogLine } from '../test/helpers/log-schema';
import { createEventGridWebhook } from './eventgrid-host';
import { startHttpHost, type HttpHost } from './http-host';
import { createHookRunner } from './invocation';
import { loadApp } from './load-app';
import { buildRouteTable } from './route-table';
import { captureHostLogs } from './test-fixtures/host-log-capture';

interface Received {
  event: Record<string, unknown>;
  functionName: string;
  invocationId: string;
  traceParent: string;
  triggerMetadata: Record<string, unknown>;
  triggerType: string;
}

const fixtureRoot = path.join(__dirname, 'test-fixtures', 'app');
const received = ((globalThis as { __localHostFixtureEventGrid?: Received[] }).__localHostFixtureEventGrid ??= []);
const { logger, lines, allLines, logged } = captureHostLogs();

let host: HttpHost;
let webhook: string;

beforeAll(async () => {
  const core = loadApp(fixtureRoot);
  const hooks = createHookRunner(core, fixtureRoot);
  await hooks.appStart();
  const { routes } = buildRouteTable(core.registrations(), 'api');
  const eventGrid = createEventGridWebhook({ registrations: core.registrations(), hooks, logger });
  host = await startHttpHost({ routes, endpoints: [eventGrid], hooks, logger, port: 0 });
  webhook = `http://127.0.0.1:${host.port}/runtime/webhooks/EventGrid?functionName=communication-events&code=ignored`;
});

afterAll(async () => {
  await host?.close();
});

beforeEach(() => {
  received.length = 0;
  lines.length = 0;
});

const egEvent = (id: string, subject: string, data: unknown = { messageId: id }) => ({
  id,
  subject,
  eventType: 'Microsoft.Communication.SMSDeliveryReportReceived',
  eventTime: '2024-05-01T10:00:00.1234567Z',
  dataVersion: '1.0',
  data,
});
const cloudEvent = (id: string, subject: string) => ({
  specversion: '1.0',
  id,
  source: '/subscriptions/x/resourceGroups/y/providers/Microsoft.Communication/CommunicationServices/z',
  type: 'Microsoft.Communication.EmailDeliveryReportReceived',
  time: '2024-05-01T10:00:00Z',
  subject,
  data: { MessageId: id, Status: 'Delivered' },
});

function post(body: string | Buffer, headers: Record<string, string> = {}, url = webhook): Promise<Response> {
  return fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'aeg-event-type': 'Notification', ...headers } });
}

describe('the Event Grid webhook', () => {
  it('answers the Event Grid schema validation handshake with the code, as text/plain like the extension', async () => {
    const validation = [egEvent('v1', '', { validationCode: '512d38b6-c7b8-40c8-89fe-f46f9e9622b6', validationUrl: 'https://x' })];
    const response = await post(JSON.stringify(validation), { 'aeg-event-type': 'SubscriptionValidation' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await response.text()).toBe('{"validationResponse":"512d38b6-c7b8-40c8-89fe-f46f9e9622b6"}');
    expect(received).toHaveLength(0);
  });

  it('reads the validation code of a CloudEvent-shaped validation event whose data is JSON text', async () => {
    const validation = { ...cloudEvent('v2', ''), data: JSON.stringify({ validationCode: 'abc' }) };
    const response = await post(JSON.stringify(validation), { 'aeg-event-type': 'subscriptionvalidation' });
    expect(await response.json()).toEqual({ validationResponse: 'abc' });
  });

  it('grants the CloudEvents OPTIONS handshake with Webhook-Allowed-Origin (Event Grid origins echoed) and no rate', async () => {
    const publicCloud = await fetch(webhook, { method: 'OPTIONS', headers: { 'WebHook-Request-Origin': 'eventgrid.azure.net' } });
    expect(publicCloud.status).toBe(200);
    expect(publicCloud.headers.get('webhook-allowed-origin')).toBe('eventgrid.azure.net');
    expect(publicCloud.headers.get('webhook-allowed-rate')).toBeNull();
    expect(await publicCloud.text()).toBe('');
    const government = await fetch(webhook, { method: 'OPTIONS', headers: { 'WebHook-Request-Origin': 'eventgrid.azure.us' } });
    expect(government.headers.get('webhook-allowed-origin')).toBe('eventgrid.azure.us');
    const other = await fetch(webhook, { method: 'OPTIONS', headers: { 'WebHook-Request-Origin': 'evil.example.com' } });
    expect(other.headers.get('webhook-allowed-origin')).toBe('eventgrid.azure.net');
  });

  it('invokes the function once per event of a batch, in order, with the event object and a proper context', async () => {
    const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const batch = [egEvent('e1', 'first', { MessageId: 'm1', From: '+15550001111' }), egEvent('e2', 'second')];
    const response = await post(JSON.stringify(batch), { traceparent: incoming });
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
    expect(received.map((entry) => entry.event)).toEqual(batch);
    const [first, second] = received as [Received, Received];
    expect(first).toMatchObject({ functionName: 'communication-events', triggerType: 'eventGridTrigger' });
    expect(first.invocationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.invocationId).not.toBe(first.invocationId);
    expect(first.traceParent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(second.traceParent).not.toBe(first.traceParent);
    expect(first.triggerMetadata).toMatchObject({ data: { messageId: 'm1', from: '+15550001111' }, sys: { methodName: 'communication-events' } });
  });

  it('takes CloudEvents: one structured event, or a batch, with the CloudEvent object as input', async () => {
    const single = cloudEvent('c1', 'one');
    const one = await post(JSON.stringify(single), { 'content-type': 'application/cloudevents+json; charset=utf-8' });
    expect(one.status).toBe(202);
    expect(received.map((entry) => entry.event)).toEqual([single]);

    received.length = 0;
    const batch = [cloudEvent('c2', 'two'), cloudEvent('c3', 'three')];
    const many = await post(JSON.stringify(batch), { 'content-type': 'application/cloudevents-batch+json; charset=utf-8' });
    expect(many.status).toBe(202);
    expect(received.map((entry) => entry.event)).toEqual(batch);
  });

  it('tells deliveries apart by aeg-event-type only: none is 400, Unsubscribe 202, and neither invokes', async () => {
    const noType = await fetch(webhook, { method: 'POST', body: JSON.stringify(cloudEvent('c4', 'x')), headers: { 'content-type': 'application/cloudevents+json' } });
    expect(noType.status).toBe(400);
    expect(noType.headers.get('content-type')).toBe('application/problem+json');
    expect((await post('[]', { 'aeg-event-type': 'SubscriptionDeletion' })).status).toBe(400);
    expect((await post('', { 'aeg-event-type': 'Unsubscribe' })).status).toBe(202);
    expect(received).toHaveLength(0);
  });

  it('answers 404 for an unknown or missing functionName, OPTIONS included', async () => {
    const base = `http://127.0.0.1:${host.port}/runtime/webhooks/eventgrid`;
    const unknown = await post(JSON.stringify([egEvent('x', 'x')]), {}, `${base}?functionName=nope`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ status: 404, code: 'not_found' });
    expect((await post('[]', {}, base)).status).toBe(404);
    expect((await fetch(`${base}?functionName=Communication-Events`, { method: 'OPTIONS' })).status).toBe(404);
    expect((await post('[]', {}, `${base}?FUNCTIONNAME=communication-events`)).status).toBe(202);
    expect(received).toHaveLength(0);
  });

  it('refuses a body that is not JSON, or not an array or object, with 400 and no invocation', async () => {
    for (const body of ['{not json', '"just a string"', '42', '']) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'invalid_request' });
    }
    expect((await post('[{"data":{}}]', { 'aeg-event-type': 'SubscriptionValidation' })).status).toBe(400);
    expect(received).toHaveLength(0);
  });

  it('runs every event when one fails, then answers 500 so Event Grid redelivers, with one error line', async () => {
    const batch = [egEvent('f1', 'ok'), egEvent('f2', 'fail', { To: '+15559998888' }), egEvent('f3', 'ok too')];
    const response = await post(JSON.stringify(batch));
    expect(response.status).toBe(500);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 500, code: 'internal_error' });
    expect(JSON.stringify(body)).not.toContain('on purpose');
    expect(received.map((entry) => entry.event.id)).toEqual(['f1', 'f2', 'f3']);
    const errors = logged().filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    const failed = received[1] as Received;
    expect(errors[0]).toMatchObject({ message: 'function failed', functionName: 'communication-events', invocationId: failed.invocationId, errorCode: 'internal_error' });
    expect(errors[0]?.stack).toContain('fixture handler failed on purpose');
  });

  it('fails an array element that is not an object without running the handler for it', async () => {
    const response = await post(JSON.stringify([egEvent('n1', 'ok'), 7]));
    expect(response.status).toBe(500);
    expect(received.map((entry) => entry.event.id)).toEqual(['n1']);
    expect(logged().filter((line) => line.level === 'error')).toEqual([expect.objectContaining({ errorCode: 'invalid_event' })]);
  });

  it('refuses a body over 1 MiB with 413 and answers methods the host route does not take with 405', async () => {
    const tooLarge = await post(Buffer.alloc(1024 * 1024 + 1, 32));
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ code: 'payload_too_large' });
    const put = await fetch(webhook, { method: 'PUT', body: '[]' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE, OPTIONS');
    expect(received).toHaveLength(0);
  });

  it('leaves other paths to the function routes', async () => {
    const response = await fetch(`http://127.0.0.1:${host.port}/runtime/webhooks/eventgridx?functionName=communication-events`, { method: 'POST' });
    expect(response.status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${host.port}/api/v1/things/5`)).status).toBe(200);
  });

  it('never logs event bodies or headers', async () => {
    await post(JSON.stringify([egEvent('s1', 'ok', { To: '+15551234567', Email: 'someone@example.com' })]), { 'x-secret': 'secret-header-text' });
    await post(JSON.stringify([egEvent('s2', 'fail', { To: '+15551234567' })]), { 'x-secret': 'secret-header-text' });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toMatch(/15551234567|someone@example\.com|secret-header-text/);
  });
});

describe('log lines', () => {
  it('all fit the log-line schema (error lines with errorCode and stack)', () => {
    expect(allLines.length).toBeGreaterThan(0);
    for (const line of allLines) expect(() => parseLogLine(line)).not.toThrow();
  });
});
