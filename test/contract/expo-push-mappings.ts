import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PushMessage } from '../../shared/ports/delivery';
import { createExpoPushProvider, type ExpoPushProviderOptions } from '../../shared/notifications/providers/expo-push-provider';
import { startFakeExpoPush, type FakeExpoPush } from '../helpers/fake-providers/fake-expo-push';
import { TEST_TIMEOUT_MS, uniquePushToken } from './delivery-provider-harness';

/** The Expo adapter's mapping of every ticket, receipt and request failure, against the fake Expo service. */
export function describeExpoMappings(): void {
  describe('Expo push adapter: error mapping', () => {
    let fake: FakeExpoPush;
    let secured: FakeExpoPush;
    beforeAll(async () => {
      [fake, secured] = await Promise.all([startFakeExpoPush(), startFakeExpoPush({ accessToken: 'expo-access-token-123' })]);
    });
    afterEach(() => {
      fake.reset();
      secured.reset();
    });
    afterAll(async () => {
      await Promise.all([fake.close(), secured.close()]);
    });

    const provider = (options: Partial<ExpoPushProviderOptions> = {}) =>
      createExpoPushProvider({ baseUrl: fake.url, requestTimeoutMs: TEST_TIMEOUT_MS, ...options });
    const message = (to: string): PushMessage => ({ to, title: 'Title', body: 'Body', data: { announcementId: 'ann-1' } });

    it('maps each ticket of a mixed batch in order, and never passes the token-quoting messages on', async () => {
      const [ok, stale, rate, big, credentials] = Array.from({ length: 5 }, () => uniquePushToken()) as [string, string, string, string, string];
      fake.script(stale, 'device_not_registered');
      fake.script(rate, { ticketError: 'MessageRateExceeded' });
      fake.script(big, { ticketError: 'MessageTooBig' });
      fake.script(credentials, { ticketError: 'InvalidCredentials' });
      const outcomes = await provider().send([ok, stale, rate, big, credentials].map(message));
      expect(outcomes).toEqual([
        { result: 'success', providerMessageId: expect.any(String) },
        { result: 'stale_token', code: 'DeviceNotRegistered' },
        { result: 'provider_error', code: 'MessageRateExceeded', transient: true },
        { result: 'provider_error', code: 'MessageTooBig', transient: false },
        { result: 'provider_error', code: 'InvalidCredentials', transient: false },
      ]);
      expect(JSON.stringify(outcomes)).not.toMatch(/ExponentPushToken/);
      expect(fake.requests.send).toBe(1);
    });

    it('counts a message with an unusable ticket id as sent, without an id no column could hold', async () => {
      const token = uniquePushToken();
      fake.script(token, 'oversized_ticket_id');
      expect(await provider().send([message(token)])).toEqual([{ result: 'success' }]);
      expect(fake.deliveriesTo(token)[0]?.ticketId.length).toBeGreaterThan(128);
    });

    it('answers a 500 with a transient error for the whole batch; the retry sends once', async () => {
      const [first, second] = [uniquePushToken(), uniquePushToken()];
      fake.script(first, { httpStatus: 500 }, 'ok');
      const failed = await provider().send([first, second].map(message));
      expect(failed).toEqual([
        { result: 'provider_error', code: 'INTERNAL_SERVER_ERROR', transient: true },
        { result: 'provider_error', code: 'INTERNAL_SERVER_ERROR', transient: true },
      ]);
      expect(fake.deliveries).toHaveLength(0);
      const retried = await provider().send([first, second].map(message));
      expect(retried.map((o) => o.result)).toEqual(['success', 'success']);
      expect(fake.deliveriesTo(first)).toHaveLength(1);
      expect(fake.deliveriesTo(second)).toHaveLength(1);
    });

    it('answers a 429 with a transient error carrying Retry-After', async () => {
      const token = uniquePushToken();
      fake.script(token, { httpStatus: 429, retryAfterSeconds: 3 });
      expect(await provider().send([message(token)])).toEqual([
        { result: 'provider_error', code: 'TOO_MANY_REQUESTS', transient: true, retryAfterMs: 3000 },
      ]);
    });

    it('answers other 4xx (a refused access token) with a permanent error', async () => {
      const token = uniquePushToken();
      const wrong = createExpoPushProvider({ baseUrl: secured.url, accessToken: 'not-the-token', requestTimeoutMs: TEST_TIMEOUT_MS });
      expect(await wrong.send([message(token)])).toEqual([{ result: 'provider_error', code: 'UNAUTHORIZED', transient: false }]);
      const right = createExpoPushProvider({ baseUrl: secured.url, accessToken: 'expo-access-token-123', requestTimeoutMs: TEST_TIMEOUT_MS });
      expect((await right.send([message(token)]))[0]?.result).toBe('success');
    });

    it('marks a token that is not an Expo push token stale without sending it', async () => {
      const good = uniquePushToken();
      const outcomes = await provider().send([message('not-a-push-token'), message(good)]);
      expect(outcomes).toEqual([{ result: 'stale_token', code: 'malformed_token' }, { result: 'success', providerMessageId: expect.any(String) }]);
      expect(fake.batchSizes).toEqual([1]);
      expect((await provider().send([message('still-not-one')]))[0]?.result).toBe('stale_token');
      expect(fake.requests.send).toBe(1);
    });

    it('refuses more than 100 messages as a bug of the caller', async () => {
      const messages = Array.from({ length: 101 }, () => message(uniquePushToken()));
      await expect(provider().send(messages)).rejects.toThrow(RangeError);
      expect(fake.requests.send).toBe(0);
    });

    it('sends a batch of 100 as one gzipped request', async () => {
      const outcomes = await provider().send(Array.from({ length: 100 }, () => message(uniquePushToken())));
      expect(outcomes.filter((o) => o.result === 'success')).toHaveLength(100);
      expect(fake.batchSizes).toEqual([100]);
    });

    it('turns a network failure or a missed deadline into a transient error', async () => {
      const token = uniquePushToken();
      const refused = createExpoPushProvider({ baseUrl: 'http://127.0.0.1:9/--/api/v2/push', requestTimeoutMs: TEST_TIMEOUT_MS });
      expect(await refused.send([message(token)])).toEqual([{ result: 'provider_error', code: 'network_error', transient: true }]);
      fake.setDelay(300);
      expect(await provider({ requestTimeoutMs: 50 }).send([message(token)])).toEqual([
        { result: 'provider_error', code: 'timeout', transient: true },
      ]);
    });

    it('reads receipts: DeviceNotRegistered is stale, ok is success, pending ones are absent', async () => {
      const [ok, stale, pending] = [uniquePushToken(), uniquePushToken(), uniquePushToken()];
      fake.script(stale, 'device_not_registered_receipt');
      fake.script(pending, 'receipt_pending');
      const tickets = await provider().send([ok, stale, pending].map(message));
      const ids = tickets.map((t) => (t.result === 'success' ? t.providerMessageId : '')) as [string, string, string];
      expect(ids.every((id) => id.length > 0)).toBe(true);
      const receipts = await provider().checkReceipts(ids);
      expect(receipts.get(ids[0])).toEqual({ result: 'success' });
      expect(receipts.get(ids[1])).toEqual({ result: 'stale_token', code: 'DeviceNotRegistered' });
      expect(receipts.has(ids[2])).toBe(false);
      expect(JSON.stringify([...receipts])).not.toMatch(/ExponentPushToken/);
    });

    it('asks for receipts in chunks of 300 and maps a failed request onto every id of it', async () => {
      const ids = Array.from({ length: 301 }, (_, index) => `ticket-${index}`);
      const receipts = await provider().checkReceipts(ids);
      expect(fake.requests.getReceipts).toBe(2);
      expect(receipts.size).toBe(0);
      const refused = createExpoPushProvider({ baseUrl: 'http://127.0.0.1:9/--/api/v2/push', requestTimeoutMs: TEST_TIMEOUT_MS });
      const failed = await refused.checkReceipts(['a', 'b']);
      expect([...failed.values()]).toEqual([
        { result: 'provider_error', code: 'network_error', transient: true },
        { result: 'provider_error', code: 'network_error', transient: true },
      ]);
    });
  });
}
