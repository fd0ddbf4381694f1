import { randomBytes } from 'node:crypto';
import { SmsClient } from '@azure/communication-sms';
import type { PipelinePolicy } from '@azure/core-rest-pipeline';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAcsSmsProvider } from '../../shared/notifications/providers/acs-sms-provider';
import type { RepeatablePair } from '../../shared/ports/delivery';
import { acsSignatureProblem } from '../helpers/fake-providers/acs-signature-check';
import { startFakeHttpServer, type FakeHttpServer, type FakeRequest } from '../helpers/fake-providers/fake-http';
import { TEST_ACS_PIPELINE } from './delivery-provider-harness';

/**
 * The app's SMS adapter posts `/sms` itself (through the SDK's pipeline pieces) rather than through
 * `SmsClient.send`: the request ACS gets must stay the one the SDK makes. Both send the same message
 * to a stand-in that records the requests and checks their signatures as ACS does; the SDK's
 * request gets the row's repeatability pair the way the adapter once gave it (its fresh pair
 * replaced in the serialized body).
 */

const FROM = '+18005550100';
const accessKey = randomBytes(32);
let server: FakeHttpServer;
let received: FakeRequest[];

beforeAll(async () => {
  server = await startFakeHttpServer((request) => {
    received.push(request);
    const { smsRecipients } = JSON.parse(request.body.toString('utf8')) as { smsRecipients: { to: string }[] };
    return { status: 202, json: { value: smsRecipients.map(({ to }) => ({ to, messageId: 'message-1', httpStatusCode: 202, successful: true })) } };
  }, () => 0);
});
afterAll(() => server.close());
beforeEach(() => {
  received = [];
});

const connectionString = () => `endpoint=${server.origin}/;accesskey=${accessKey.toString('base64')}`;

/** What the SDK sends for `message`, with `pair` in place of the fresh pair it makes per call. */
async function sdkRequest(message: { to: string; text: string; tag?: string }, pair?: RepeatablePair): Promise<FakeRequest> {
  const rowPair: PipelinePolicy = {
    name: 'rowPair',
    sendRequest(request, next) {
      if (pair && typeof request.body === 'string') {
        const body = JSON.parse(request.body) as { smsRecipients: Record<string, unknown>[] };
        for (const recipient of body.smsRecipients) {
          recipient.repeatabilityRequestId = pair.requestId;
          recipient.repeatabilityFirstSent = pair.firstSent.toUTCString();
        }
        request.body = JSON.stringify(body);
      }
      return next(request);
    },
  };
  const client = new SmsClient(connectionString(), { allowInsecureConnection: true, additionalPolicies: [{ policy: rowPair, position: 'perCall' }] });
  const [result] = await client.send(
    { from: FROM, to: [message.to], message: message.text },
    { enableDeliveryReport: true, ...(message.tag ? { tag: message.tag } : {}) },
  );
  expect(result?.successful).toBe(true);
  return received.pop() as FakeRequest;
}

async function appRequest(message: { to: string; text: string; tag?: string; repeatability?: RepeatablePair }): Promise<FakeRequest> {
  const access = { kind: 'connection-string' as const, connectionString: connectionString(), endpoint: server.origin };
  const outcome = await createAcsSmsProvider({ access, from: FROM, ...TEST_ACS_PIPELINE }).send(message);
  expect(outcome).toEqual({ result: 'accepted', providerMessageId: 'message-1' });
  return received.pop() as FakeRequest;
}

/** Headers whose values are made per request (signature, date, request id); their presence is compared. */
const PER_REQUEST = new Set(['authorization', 'x-ms-date', 'x-ms-content-sha256', 'x-ms-client-request-id', 'host']);

function comparable(request: FakeRequest): { method: string; url: string; headers: Record<string, unknown>; names: string[] } {
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !PER_REQUEST.has(name)));
  return { method: request.method, url: request.url, headers, names: Object.keys(request.headers).sort() };
}

describe("the ACS SMS adapter's request", () => {
  it("is the SDK's SmsClient.send request, byte for byte in its body, with the row's repeatability pair, signed as ACS checks", async () => {
    const pair = { requestId: '0f8fad5b-d9cb-469f-a165-70867728950e', firstSent: new Date('2031-05-10T08:00:00.000Z') };
    const message = { to: '+15555550123', text: 'Trip tomorrow\nBring a coat – and boots ☔', tag: 'announcement-1/user-1' };
    const sdk = await sdkRequest(message, pair);
    const app = await appRequest({ ...message, repeatability: pair });
    expect(app.rawBody.equals(sdk.rawBody), `${app.rawBody.toString()}\n${sdk.rawBody.toString()}`).toBe(true);
    expect(comparable(app)).toEqual(comparable(sdk));
    for (const request of [sdk, app]) {
      expect(acsSignatureProblem(request, accessKey)).toBeUndefined();
      expect(request.headers['x-ms-client-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(JSON.parse(app.body.toString()).smsRecipients).toEqual([
      { to: message.to, repeatabilityRequestId: pair.requestId, repeatabilityFirstSent: 'Sat, 10 May 2031 08:00:00 GMT' },
    ]);
  });

  it("without a tag or a row's pair: the SDK's body, with a fresh pair of the same form", async () => {
    const message = { to: '+15555550124', text: 'hello' };
    const sdk = await sdkRequest(message);
    const app = await appRequest(message);
    const withoutPair = (request: FakeRequest) =>
      request.body.toString().replace(/"repeatabilityRequestId":"[0-9a-f-]{36}","repeatabilityFirstSent":"[A-Za-z]{3}, \d\d [A-Za-z]{3} \d{4} \d\d:\d\d:\d\d GMT"/, 'PAIR');
    expect(withoutPair(app)).toContain('PAIR');
    expect(withoutPair(app)).toBe(withoutPair(sdk));
    expect(comparable(app)).toEqual(comparable(sdk));
    expect(acsSignatureProblem(app, accessKey)).toBeUndefined();
  });
});
