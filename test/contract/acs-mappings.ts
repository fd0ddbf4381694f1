import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AcsAccess } from '../../shared/config';
import { readEmailOperation } from '../../shared/notifications/providers/acs-email-operation';
import { createAcsEmailProvider } from '../../shared/notifications/providers/acs-email-provider';
import { createAcsSmsProvider } from '../../shared/notifications/providers/acs-sms-provider';
import type { SendObserver } from '../../shared/ports/delivery';
import { startFakeAcs, type FakeAcs } from '../helpers/fake-providers/fake-acs';
import { startFakeManagedIdentity, type FakeManagedIdentity } from '../helpers/fake-providers/fake-managed-identity';
import { FAKE_EMAIL_SENDER, FAKE_SMS_FROM } from '../helpers/fake-providers/start-fake-providers';
import { createTestCertificate, type TestCertificate } from '../helpers/test-certificate';
import { fakeAccess, TEST_ACS_PIPELINE, uniqueEmail, uniquePhone } from './delivery-provider-harness';

/**
 * The ACS adapters (the official SDKs) against the fake ACS: the mapping of answers to outcomes,
 * retries inside the SDK pipeline with repeatable requests, and both ways of authenticating (an
 * access key's HMAC signature, and the managed identity's bearer token over TLS).
 */

const TEST_PIPELINE = TEST_ACS_PIPELINE;
const keyAccess = fakeAccess;
/** A connection string to the same fake with another key: every signature it makes is wrong. */
const withWrongKey = (acs: FakeAcs) => `endpoint=${acs.endpoint}/;accesskey=${Buffer.from('not the key').toString('base64')}`;
const observer = (): SendObserver & { retries: string[] } => {
  const retries: string[] = [];
  return { tries: 0, retries, onRetry: (code) => retries.push(code) };
};

/** The ACS SMS adapter's mapping of per-recipient results and request failures, against the fake ACS. */
export function describeAcsSmsMappings(): void {
  describe('ACS SMS adapter (@azure/communication-sms)', () => {
    let acs: FakeAcs;
    beforeAll(async () => {
      acs = await startFakeAcs();
    });
    afterEach(() => acs.reset());
    afterAll(() => acs.close());

    const sms = (access = keyAccess(acs)) => createAcsSmsProvider({ access, from: FAKE_SMS_FROM, ...TEST_PIPELINE });

    it('sends from the configured number with a delivery report and the tag, signed: accepted with the message id', async () => {
      const phone = uniquePhone();
      const tries = observer();
      const outcome = await sms().send({ to: phone, text: 'hello', tag: 'a1/u1' }, tries);
      expect(outcome).toEqual({ result: 'accepted', providerMessageId: acs.smsTo(phone)[0]?.messageId });
      expect(acs.smsTo(phone)).toEqual([
        { from: FAKE_SMS_FROM, to: phone, message: 'hello', messageId: expect.any(String), enableDeliveryReport: true, tag: 'a1/u1' },
      ]);
      expect(acs.requests).toMatchObject({ sms: 1, rejectedSignatures: 0, repeats: 0 });
      expect(tries).toMatchObject({ tries: 1, retries: [] });
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

    it('retries a failed request inside the SDK and tells the observer; a request that keeps failing is transient', async () => {
      const [flaky, down] = [uniquePhone(), uniquePhone()];
      acs.scriptSms(flaky, { httpStatus: 500 }, 'ok');
      const tries = observer();
      expect((await sms().send({ to: flaky, text: 'x' }, tries)).result).toBe('accepted');
      expect(tries).toMatchObject({ tries: 2, retries: ['http_500'] });
      expect(acs.smsTo(flaky)).toHaveLength(1);
      acs.scriptSms(down, { httpStatus: 503 });
      const exhausted = observer();
      expect(await sms().send({ to: down, text: 'x' }, exhausted)).toEqual({ result: 'provider_error', code: 'InternalServerError', transient: true });
      expect(exhausted.tries).toBe(3);
    });

    it('sends once when the answer is lost: the retry repeats the same repeatable request, and ACS answers it from its record', async () => {
      const phone = uniquePhone();
      acs.scriptSms(phone, 'lost_answer', 'ok');
      const tries = observer();
      const outcome = await sms().send({ to: phone, text: 'only once' }, tries);
      expect(outcome).toEqual({ result: 'accepted', providerMessageId: acs.smsTo(phone)[0]?.messageId });
      expect(acs.smsTo(phone)).toHaveLength(1);
      expect(acs.requests).toMatchObject({ sms: 2, repeats: 1 });
      expect(tries).toMatchObject({ tries: 2, retries: ['network'] });
    });

    it('sends a message that carries its row\'s repeatability pair once, even from a new client after a restart; a pair too old is repeatability_expired', async () => {
      const phone = uniquePhone();
      const repeatability = { requestId: '0b0b0b0b-0000-8000-8000-00000000000b', firstSent: new Date(Date.now() - 60_000) };
      const first = await sms().send({ to: phone, text: 'hello', tag: 'a1/u1', repeatability });
      // Another adapter, as a restarted process builds it: the same pair is the same request to ACS.
      const again = await sms().send({ to: phone, text: 'hello', tag: 'a1/u1', repeatability });
      expect(again).toEqual(first);
      expect(acs.smsTo(phone)).toHaveLength(1);
      expect(acs.requests).toMatchObject({ sms: 2, repeats: 1 });
      const stale = { requestId: '0c0c0c0c-0000-8000-8000-00000000000c', firstSent: new Date(Date.now() - 6 * 60_000) };
      expect(await sms().send({ to: phone, text: 'hello', repeatability: stale })).toEqual({ result: 'provider_error', code: 'repeatability_expired', transient: false });
      expect(acs.smsTo(phone)).toHaveLength(1);
    });

    it('waits out a short Retry-After inside the send, and leaves a long one to the queue at once', async () => {
      const [briefly, long] = [uniquePhone(), uniquePhone()];
      acs.scriptSms(briefly, { httpStatus: 429, retryAfterSeconds: 0 }, 'ok');
      expect((await sms().send({ to: briefly, text: 'x' })).result).toBe('accepted');
      acs.scriptSms(long, { httpStatus: 429, retryAfterSeconds: 30 });
      const started = Date.now();
      const tries = observer();
      expect(await sms().send({ to: long, text: 'x' }, tries)).toEqual({ result: 'provider_error', code: 'http_429', transient: true });
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(tries.tries).toBe(1);
    });

    it('is refused with 401 Denied when the signature is wrong: a permanent error, nothing sent', async () => {
      const outcome = await sms(keyAccess(acs, withWrongKey(acs))).send({ to: uniquePhone(), text: 'x' });
      expect(outcome).toEqual({ result: 'provider_error', code: 'Denied', transient: false });
      expect(acs.requests.rejectedSignatures).toBe(1);
      expect(acs.smsDeliveries).toHaveLength(0);
    });
  });
}

/** The ACS e-mail adapter's send (no polls), its operation read, and request failures, against the fake ACS. */
export function describeAcsEmailMappings(): void {
  describe('ACS e-mail adapter (@azure/communication-email)', () => {
    let acs: FakeAcs;
    beforeAll(async () => {
      acs = await startFakeAcs({ emailPollsUntilDone: 2, emailRetryAfterSeconds: 20 });
    });
    afterEach(() => acs.reset());
    afterAll(() => acs.close());

    const settings = (access = keyAccess(acs)) => ({ access, senderAddress: FAKE_EMAIL_SENDER, ...TEST_PIPELINE });
    const email = (access = keyAccess(acs)) => createAcsEmailProvider(settings(access));
    const operationId = '3f0e0a4e-52c1-8d07-9d0e-6a1f4c2b9e11';

    it('ends at the 202: accepted under the operation id it chose, no status poll, the message sent once with tracking off', async () => {
      const address = uniqueEmail();
      const outcome = await email().send({ to: address, subject: 'Hello', text: 'Body', operationId });
      expect(outcome).toEqual({ result: 'accepted', providerMessageId: operationId });
      expect(acs.emailsTo(address)).toEqual([
        {
          senderAddress: FAKE_EMAIL_SENDER,
          to: address,
          subject: 'Hello',
          plainText: 'Body',
          operationId,
          // No pair of the row's: the adapter makes one, so the SDK's own retries are repeats.
          repeatabilityRequestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          repeatabilityFirstSent: expect.stringMatching(/ GMT$/),
          end: 'Succeeded',
        },
      ]);
      expect(acs.requests).toMatchObject({ emailSend: 1, emailStatus: 0, rejectedSignatures: 0 });
    });

    it('reads an operation once when asked: Succeeded, Failed (suppressed: a hard bounce), still running', async () => {
      const [fine, bouncing, failing] = [uniqueEmail(), uniqueEmail(), uniqueEmail()];
      acs.scriptEmail(bouncing, 'hard_bounce');
      acs.scriptEmail(failing, { operationError: 'EmailDropped' });
      const provider = email();
      const ids = ['0a0a0a0a-0000-8000-8000-000000000001', '0a0a0a0a-0000-8000-8000-000000000002', '0a0a0a0a-0000-8000-8000-000000000003'];
      for (const [index, to] of [fine, bouncing, failing].entries()) {
        expect((await provider.send({ to, subject: 's', text: 't', operationId: ids[index] })).result).toBe('accepted');
      }
      expect(await readEmailOperation(settings(), ids[0] as string)).toEqual({ state: 'running' });
      expect(await readEmailOperation(settings(), ids[0] as string)).toEqual({ state: 'ended', outcome: { result: 'success', providerMessageId: ids[0] } });
      await readEmailOperation(settings(), ids[1] as string);
      expect(await provider.operationOutcome?.(ids[1] as string)).toEqual({
        state: 'ended',
        outcome: { result: 'hard_bounce', code: 'EmailDroppedAllRecipientsSuppressed' },
      });
      await readEmailOperation(settings(), ids[2] as string);
      expect(await provider.operationOutcome?.(ids[2] as string)).toEqual({
        state: 'ended',
        outcome: { result: 'provider_error', code: 'EmailDropped', transient: false },
      });
      // A question that fails says nothing about the message: an operation ACS does not know, a refused signature.
      expect(await provider.operationOutcome?.('0a0a0a0a-0000-8000-8000-0000000000ff')).toEqual({ state: 'unknown', code: 'NotFound' });
      expect(await readEmailOperation(settings(keyAccess(acs, withWrongKey(acs))), ids[0] as string)).toEqual({ state: 'unknown', code: 'Denied' });
    });

    it('maps an address ACS refuses (400) to a permanent error that quotes nothing', async () => {
      const address = uniqueEmail();
      acs.scriptEmail(address, 'invalid_address');
      const outcome = await email().send({ to: address, subject: 's', text: 't' });
      expect(outcome).toEqual({ result: 'provider_error', code: 'BadRequest', transient: false });
      expect(JSON.stringify(outcome)).not.toContain(address);
    });

    it('retries a 503 inside the SDK with the same repeatability headers; a lost answer is repeated, not sent again', async () => {
      const [flaky, lost] = [uniqueEmail(), uniqueEmail()];
      acs.scriptEmail(flaky, { httpStatus: 503 }, 'ok');
      const tries = observer();
      expect((await email().send({ to: flaky, subject: 's', text: 't' }, tries)).result).toBe('accepted');
      expect(tries).toMatchObject({ tries: 2, retries: ['http_503'] });
      acs.scriptEmail(lost, 'lost_answer', 'ok');
      const outcome = await email().send({ to: lost, subject: 's', text: 't', operationId });
      expect(outcome).toEqual({ result: 'accepted', providerMessageId: operationId });
      expect(acs.emailsTo(lost)).toHaveLength(1);
      expect(acs.requests.repeats).toBe(1);
      // A later send of the same row (a redelivered queue message) finds ACS holding its operation: accepted, not sent again.
      expect(await email().send({ to: lost, subject: 's', text: 't', operationId })).toEqual({ result: 'accepted', providerMessageId: operationId });
      expect(acs.emailsTo(lost)).toHaveLength(1);
    });

    it('sends a message that carries its row\'s repeatability pair once, even from a new client after a restart; a pair too old is repeatability_expired', async () => {
      const address = uniqueEmail();
      const repeatability = { requestId: '0d0d0d0d-0000-8000-8000-00000000000d', firstSent: new Date(Date.now() - 60_000) };
      const message = { to: address, subject: 'Hi', text: 'hello', operationId: '0e0e0e0e-0000-8000-8000-00000000000e', repeatability };
      const first = await email().send(message);
      expect(first).toEqual({ result: 'accepted', providerMessageId: message.operationId });
      expect(await email().send(message)).toEqual(first);
      expect(acs.emailsTo(address)).toHaveLength(1);
      const stale = { ...message, operationId: '0f0f0f0f-0000-8000-8000-00000000000f', repeatability: { requestId: '01010101-0000-8000-8000-000000000001', firstSent: new Date(Date.now() - 6 * 60_000) } };
      expect(await email().send(stale)).toEqual({ result: 'provider_error', code: 'repeatability_expired', transient: false });
      expect(acs.emailsTo(address)).toHaveLength(1);
    });

    it('is refused with 401 Denied when the signature is wrong: permanent, nothing sent', async () => {
      const outcome = await email(keyAccess(acs, withWrongKey(acs))).send({ to: uniqueEmail(), subject: 's', text: 't' });
      expect(outcome).toEqual({ result: 'provider_error', code: 'Denied', transient: false });
      expect(acs.requests.rejectedSignatures).toBe(1);
      expect(acs.emailDeliveries).toHaveLength(0);
    });
  });
}

/** Both adapters with `ACS_ENDPOINT` and the managed identity: bearer tokens over TLS, no key anywhere. */
export function describeAcsIdentityPath(): void {
  describe('ACS adapters with the managed identity', () => {
    let identity: FakeManagedIdentity;
    let certificate: TestCertificate;
    let acs: FakeAcs;
    beforeAll(async () => {
      identity = await startFakeManagedIdentity();
      certificate = createTestCertificate();
      acs = await startFakeAcs({ tls: certificate, bearerTokens: () => identity.tokensFor('https://communication.azure.com') });
      for (const [name, value] of Object.entries(identity.env)) vi.stubEnv(name, value);
    });
    afterAll(async () => {
      vi.unstubAllEnvs();
      await Promise.all([acs.close(), identity.close()]);
      certificate.dispose();
    });

    it('gets a token for ACS from the identity endpoint and sends SMS and e-mail with it; the fake refuses anything else', async () => {
      const access: AcsAccess = { kind: 'identity', endpoint: acs.endpoint, clientId: identity.clientId };
      const pipeline = { ...TEST_PIPELINE, clientOptions: { tlsOptions: { ca: certificate.cert.toString() } } };
      const [phone, address] = [uniquePhone(), uniqueEmail()];
      expect((await createAcsSmsProvider({ access, from: FAKE_SMS_FROM, ...pipeline }).send({ to: phone, text: 'x' })).result).toBe('accepted');
      const email = createAcsEmailProvider({ access, senderAddress: FAKE_EMAIL_SENDER, ...pipeline });
      expect((await email.send({ to: address, subject: 's', text: 't', operationId: '0b0b0b0b-0000-8000-8000-000000000001' })).result).toBe('accepted');
      expect(acs.requests).toMatchObject({ sms: 1, emailSend: 1, bearer: 2, rejectedSignatures: 0 });
      expect(identity.requests.token).toBeGreaterThanOrEqual(1);
      // A connection string's HMAC still works against this fake, but a made-up bearer token does not.
      const forged = createAcsSmsProvider({
        access,
        from: FAKE_SMS_FROM,
        ...pipeline,
        credential: { getToken: async () => ({ token: 'forged', expiresOnTimestamp: Date.now() + 60_000 }) },
      });
      expect(await forged.send({ to: uniquePhone(), text: 'x' })).toEqual({ result: 'provider_error', code: 'Denied', transient: false });
    });
  });
}
