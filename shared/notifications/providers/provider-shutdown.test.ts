import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAcs, type FakeAcs } from '../../../test/helpers/fake-providers/fake-acs';
import { createShutdown, type Shutdown } from '../../lifecycle/shutdown';
import { shutdownTimings } from '../../settings/shutdown-timings';
import { DEFAULT_RETRY_POLICY, retryDelayMs } from './retry-transient';
import { createAcsEmailProvider } from './acs-email-provider';
import { createAcsSmsProvider } from './acs-sms-provider';
import type { PushMessage } from '../../ports/delivery';
import { createExpoPushProvider } from './expo-push-provider';
import { SHUTDOWN_CODE, shutdownOutcome } from './provider-http';

/**
 * The providers under a shutdown: nothing is sent once it is stopping, and calls in flight end at
 * its one deadline as `shutdown` outcomes (transient, never retried inside the invocation), however
 * long their own timeouts and retries would have run.
 */
const GRACE_MS = 600;
const { deadlineMs } = shutdownTimings(GRACE_MS);

let acs: FakeAcs;

beforeAll(async () => {
  acs = await startFakeAcs();
});

afterAll(async () => {
  await acs?.close();
});

const access = () => ({ kind: 'connection-string' as const, connectionString: acs.connectionString, endpoint: acs.endpoint });

function shutdownNow(): Shutdown {
  return createShutdown({ graceMs: GRACE_MS });
}

const push = (index: number): PushMessage => ({ to: `ExponentPushToken[shutdown-${index}]`, title: 'Title', body: 'Body', data: { announcementId: 'ann-1' } });

describe('providers under a shutdown', () => {
  it('a shutdown outcome is transient and never waited for inside the invocation', () => {
    expect(shutdownOutcome()).toMatchObject({ result: 'provider_error', code: SHUTDOWN_CODE, transient: true });
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, shutdownOutcome())).toBeUndefined();
  });

  it('Expo: a request in flight ends at the deadline; none starts once stopping', async () => {
    let requests = 0;
    // Answers nothing until the request's signal aborts, as a provider that hangs.
    const hangingFetch: typeof fetch = (_input, init) => {
      requests += 1;
      return new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    };
    const shutdown = shutdownNow();
    const provider = createExpoPushProvider({ baseUrl: 'https://push.example.test/v2/push', fetch: hangingFetch, requestTimeoutMs: 60_000, shutdown });
    const sending = provider.send([push(1), push(2)]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const begunAt = Date.now();
    shutdown.begin('test');
    const outcomes = await sending;
    expect(Date.now() - begunAt).toBeGreaterThanOrEqual(deadlineMs - 20);
    expect(outcomes).toEqual([shutdownOutcome(), shutdownOutcome()]);
    expect(await provider.send([push(3)])).toEqual([shutdownOutcome()]);
    expect(await provider.checkReceipts(['ticket-1'])).toEqual(new Map([['ticket-1', shutdownOutcome()]]));
    expect(requests).toBe(1);
  });

  it('ACS e-mail: a hanging send ends at the deadline, despite its 10 s tries; the resend under the same operation id sends once', async () => {
    acs.reset();
    const shutdown = shutdownNow();
    const provider = createAcsEmailProvider({ access: access(), senderAddress: 'noreply@example.test', retry: DEFAULT_RETRY_POLICY, shutdown });
    const message = { to: 'hang@example.test', subject: 'S', text: 'T', operationId: '6f1f0a52-3c1b-4c55-9d4a-1d1f5b0c2a10' };
    acs.scriptEmail(message.to, 'hang');
    const observer = { tries: 0 };
    const sending = provider.send(message, observer);
    while (acs.requests.emailHung === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const begunAt = Date.now();
    shutdown.begin('test');
    expect(await sending).toEqual(shutdownOutcome());
    expect(Date.now() - begunAt).toBeGreaterThanOrEqual(deadlineMs - 20);
    expect(Date.now() - begunAt).toBeLessThan(deadlineMs + 1_000);
    expect(observer.tries).toBe(1);
    expect(await provider.send({ ...message, to: 'next@example.test' })).toEqual(shutdownOutcome());
    expect(await provider.operationOutcome?.(message.operationId)).toEqual({ state: 'unknown', code: SHUTDOWN_CODE });
    expect(acs.requests).toMatchObject({ emailSend: 1, emailStatus: 0 });

    // Another instance, the provider answering again: the row's operation id, sent once.
    acs.scriptEmail(message.to, 'ok');
    const next = createAcsEmailProvider({ access: access(), senderAddress: 'noreply@example.test', retry: DEFAULT_RETRY_POLICY, shutdown: shutdownNow() });
    expect(await next.send(message)).toEqual({ result: 'accepted', providerMessageId: message.operationId });
    expect(acs.emailsTo(message.to)).toHaveLength(1);
  });

  it('ACS SMS: nothing is sent once stopping', async () => {
    acs.reset();
    const shutdown = shutdownNow();
    const provider = createAcsSmsProvider({ access: access(), from: '+18005550100', retry: DEFAULT_RETRY_POLICY, shutdown });
    expect(await provider.send({ to: '+15555550123', text: 'T' })).toMatchObject({ result: 'accepted' });
    shutdown.begin('test');
    expect(await provider.send({ to: '+15555550124', text: 'T' })).toEqual(shutdownOutcome());
    expect(acs.requests.sms).toBe(1);
  });
});
