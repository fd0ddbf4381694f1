import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAcsEmailProvider, type AcsEmailProviderOptions } from '../../shared/notifications/providers/acs-email-provider';
import { createAcsSmsProvider } from '../../shared/notifications/providers/acs-sms-provider';
import { startFakeAcs, type FakeAcs } from '../helpers/fake-providers/fake-acs';
import { FAKE_EMAIL_SENDER, FAKE_SMS_FROM } from '../helpers/fake-providers/start-fake-providers';
import { TEST_TIMEOUT_MS, uniqueEmail, uniquePhone } from './delivery-provider-harness';

/** A connection string to the same fake with another key: every signature it makes is wrong. */
const withWrongKey = (acs: FakeAcs) => `endpoint=${acs.endpoint}/;accesskey=${Buffer.from('not the key').toString('base64')}`;

/** The ACS SMS adapter's mapping of per-recipient results and request failures, against the fake ACS. */
export function describeAcsSmsMappings(): void {
  describe('ACS SMS adapter: error mapping', () => {
    let acs: FakeAcs;
    beforeAll(async () => {
      acs = await startFakeAcs();
    });
    afterEach(() => acs.reset());
    afterAll(() => acs.close());

    const sms = (connectionString = acs.connectionString) =>
      createAcsSmsProvider({ connectionString, from: FAKE_SMS_FROM, requestTimeoutMs: TEST_TIMEOUT_MS });

    it('sends from the configured number with delivery reports off, signed', async () => {
      const phone = uniquePhone();
      expect((await sms().send({ to: phone, text: 'hello' })).result).toBe('success');
      expect(acs.smsTo(phone)).toEqual([{ from: FAKE_SMS_FROM, to: phone, message: 'hello', messageId: expect.any(String) }]);
      expect(acs.requests).toMatchObject({ sms: 1, rejectedSignatures: 0 });
    });

    it('maps a recipient refused with 400 to a permanent error, and never quotes the number', async () => {
      const phone = uniquePhone();
      acs.scriptSms(phone, { recipientStatus: 400 });
      const outcome = await sms().send({ to: phone, text: 'hello' });
      expect(outcome).toEqual({ result: 'provider_error', code: 'http_400', transient: false });
      expect(await sms().send({ to: '12345', text: 'hello' })).toEqual({ result: 'provider_error', code: 'http_400', transient: false });
      expect(JSON.stringify(outcome)).not.toContain(phone);
      expect(acs.smsDeliveries).toHaveLength(0);
    });

    it('maps a recipient result of 429 or 5xx to a transient error', async () => {
      const [throttled, failing] = [uniquePhone(), uniquePhone()];
      acs.scriptSms(throttled, { recipientStatus: 429 });
      acs.scriptSms(failing, { recipientStatus: 503 });
      expect(await sms().send({ to: throttled, text: 'x' })).toEqual({ result: 'provider_error', code: 'http_429', transient: true });
      expect(await sms().send({ to: failing, text: 'x' })).toEqual({ result: 'provider_error', code: 'http_503', transient: true });
    });

    it('maps a failed request: 500 transient, then the retry sends once; 429 with Retry-After', async () => {
      const [phone, throttled] = [uniquePhone(), uniquePhone()];
      acs.scriptSms(phone, { httpStatus: 500 }, 'ok');
      expect(await sms().send({ to: phone, text: 'x' })).toEqual({ result: 'provider_error', code: 'InternalServerError', transient: true });
      expect((await sms().send({ to: phone, text: 'x' })).result).toBe('success');
      expect(acs.smsTo(phone)).toHaveLength(1);
      acs.scriptSms(throttled, { httpStatus: 429, retryAfterSeconds: 7 });
      expect(await sms().send({ to: throttled, text: 'x' })).toEqual({
        result: 'provider_error',
        code: 'TooManyRequests',
        transient: true,
        retryAfterMs: 7000,
      });
    });

    it('is refused with 401 Denied when the signature is wrong: a permanent error, nothing sent', async () => {
      const phone = uniquePhone();
      expect(await sms(withWrongKey(acs)).send({ to: phone, text: 'x' })).toEqual({ result: 'provider_error', code: 'Denied', transient: false });
      expect(acs.requests.rejectedSignatures).toBe(1);
      expect(acs.smsDeliveries).toHaveLength(0);
    });

    it('turns an unreachable endpoint into a transient error', async () => {
      const down = sms('endpoint=http://127.0.0.1:9/;accesskey=cHc=');
      expect(await down.send({ to: uniquePhone(), text: 'x' })).toEqual({ result: 'provider_error', code: 'network_error', transient: true });
    });
  });
}

/** The ACS e-mail adapter's mapping of operation results and request failures, against the fake ACS. */
export function describeAcsEmailMappings(): void {
  describe('ACS e-mail adapter: error mapping', () => {
    let acs: FakeAcs;
    let slowAcs: FakeAcs;
    beforeAll(async () => {
      [acs, slowAcs] = await Promise.all([startFakeAcs(), startFakeAcs({ emailPollsUntilDone: 10, emailRetryAfterSeconds: 5 })]);
    });
    afterEach(() => {
      acs.reset();
      slowAcs.reset();
    });
    afterAll(async () => {
      await Promise.all([acs.close(), slowAcs.close()]);
    });

    const waits: number[] = [];
    const email = (options: Partial<AcsEmailProviderOptions> = {}) =>
      createAcsEmailProvider({
        connectionString: acs.connectionString,
        senderAddress: FAKE_EMAIL_SENDER,
        requestTimeoutMs: TEST_TIMEOUT_MS,
        sleep: async (ms) => {
          waits.push(ms);
        },
        ...options,
      });
    const message = (to: string) => ({ to, subject: 'Subject', text: 'Text' });

    it('sends from the configured sender and polls the operation to Succeeded', async () => {
      const address = uniqueEmail();
      const outcome = await email().send(message(address));
      expect(outcome).toEqual({ result: 'success', providerMessageId: acs.emailsTo(address)[0]?.operationId });
      expect(acs.emailsTo(address)[0]).toMatchObject({ senderAddress: FAKE_EMAIL_SENDER, subject: 'Subject', plainText: 'Text' });
      expect(acs.requests).toMatchObject({ emailSend: 1, emailStatus: 1, rejectedSignatures: 0 });
    });

    it('maps an operation dropped for a suppressed (hard-bounced) address to hard_bounce, quoting nothing', async () => {
      const address = uniqueEmail();
      acs.scriptEmail(address, 'hard_bounce');
      const outcome = await email().send(message(address));
      expect(outcome).toEqual({ result: 'hard_bounce', code: 'EmailDroppedAllRecipientsSuppressed' });
      expect(JSON.stringify(outcome)).not.toContain(address);
      expect(acs.emailDeliveries).toHaveLength(0);
    });

    it('maps another failed operation to a permanent error with its code', async () => {
      const address = uniqueEmail();
      acs.scriptEmail(address, { operationError: 'EmailDropped' });
      expect(await email().send(message(address))).toEqual({ result: 'provider_error', code: 'EmailDropped', transient: false });
    });

    it('maps a 400 for an unusable address to a permanent error, not a hard bounce', async () => {
      const address = uniqueEmail();
      acs.scriptEmail(address, 'invalid_address');
      const outcome = await email().send(message(address));
      expect(outcome).toEqual({ result: 'provider_error', code: 'BadRequest', transient: false });
      expect(JSON.stringify(outcome)).not.toContain(address);
    });

    it('maps a failed send: 500 transient, then the retry sends once; 429 with Retry-After', async () => {
      const [address, throttled] = [uniqueEmail(), uniqueEmail()];
      acs.scriptEmail(address, { httpStatus: 503 }, 'ok');
      expect(await email().send(message(address))).toEqual({ result: 'provider_error', code: 'InternalServerError', transient: true });
      expect((await email().send(message(address))).result).toBe('success');
      expect(acs.emailsTo(address)).toHaveLength(1);
      acs.scriptEmail(throttled, { httpStatus: 429, retryAfterSeconds: 2 });
      expect(await email().send(message(throttled))).toEqual({
        result: 'provider_error',
        code: 'TooManyRequests',
        transient: true,
        retryAfterMs: 2000,
      });
    });

    it('is refused with 401 Denied when the signature is wrong: a permanent error, nothing sent', async () => {
      const address = uniqueEmail();
      const outcome = await email({ connectionString: withWrongKey(acs) }).send(message(address));
      expect(outcome).toEqual({ result: 'provider_error', code: 'Denied', transient: false });
      expect(acs.requests.rejectedSignatures).toBe(1);
      expect(acs.emailDeliveries).toHaveLength(0);
    });

    it('counts a message still running after the polls as accepted, waiting Retry-After capped', async () => {
      waits.length = 0;
      const address = uniqueEmail();
      const outcome = await email({ connectionString: slowAcs.connectionString, polling: { maxPolls: 2, maxIntervalMs: 1500 } }).send(
        message(address),
      );
      expect(outcome).toEqual({ result: 'success', providerMessageId: expect.any(String) });
      expect(slowAcs.requests.emailStatus).toBe(2);
      expect(waits).toEqual([1500, 1500]);
    });

    it('does not poll when told not to, and counts a failing status poll as accepted, never resending', async () => {
      const address = uniqueEmail();
      expect((await email({ polling: { maxPolls: 0 } }).send(message(address))).result).toBe('success');
      expect(acs.requests.emailStatus).toBe(0);
      const statusDown: typeof fetch = async (input, init) =>
        init?.method === 'GET' ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init);
      expect((await email({ fetch: statusDown }).send(message(uniqueEmail()))).result).toBe('success');
      expect(acs.requests.emailSend).toBe(2);
    });
  });
}
