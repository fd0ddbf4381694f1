import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  DeliveryOutcome,
  EmailProvider,
  PushMessage,
  PushProvider,
  SmsProvider,
} from '../../shared/ports/delivery';
import {
  uniqueEmail,
  uniquePhone,
  uniquePushToken,
  type HarnessFactory,
  type ProviderHarness,
} from './delivery-provider-harness';

/**
 * What every adapter of a delivery port promises, whatever is behind it: a success per delivered
 * message, in order, with an id; the message reaching the far side exactly once with its text;
 * outcomes that never carry the address or the text (they are logged).
 */

function withHarness<P>(factory: HarnessFactory<P>): () => ProviderHarness<P> {
  let harness: ProviderHarness<P> | undefined;
  beforeEach(async () => {
    harness = await factory();
  });
  afterEach(async () => {
    await harness?.dispose();
    harness = undefined;
  });
  return () => {
    if (!harness) throw new Error('harness not started');
    return harness;
  };
}

function expectNoPersonalData(outcomes: readonly DeliveryOutcome[], ...values: string[]): void {
  const text = JSON.stringify(outcomes);
  for (const value of values) expect(text).not.toContain(value);
}

function pushMessage(token: string, index = 0): PushMessage {
  return { to: token, title: `Title ${index}`, body: `Body text ${index} for ${token}`, data: { announcementId: `ann-${index}` } };
}

export function describePushContract(name: string, factory: HarnessFactory<PushProvider>): void {
  describe(`PushProvider contract: ${name}`, () => {
    const harness = withHarness(factory);

    it('delivers each message once and answers one success with an id per message, in order', async () => {
      const tokens = [uniquePushToken(), uniquePushToken(), uniquePushToken()];
      const outcomes = await harness().provider.send(tokens.map(pushMessage));
      expect(outcomes.map((o) => o.result)).toEqual(['success', 'success', 'success']);
      const ids = outcomes.map((o) => (o.result === 'success' ? o.providerMessageId : undefined));
      expect(new Set(ids).size).toBe(3);
      for (const [index, token] of tokens.entries()) {
        expect(await harness().delivered(token)).toEqual([{ title: `Title ${index}`, text: `Body text ${index} for ${token}` }]);
      }
      expectNoPersonalData(outcomes, ...tokens, 'Body text');
    });

    it('takes a full batch of 100', async () => {
      const tokens = Array.from({ length: 100 }, () => uniquePushToken());
      const outcomes = await harness().provider.send(tokens.map(pushMessage));
      expect(outcomes).toHaveLength(100);
      expect(outcomes.every((o) => o.result === 'success')).toBe(true);
      expect((await harness().delivered(tokens[99] as string)).length).toBe(1);
    });

    it('answers an empty batch with no outcomes', async () => {
      expect(await harness().provider.send([])).toEqual([]);
    });
  });
}

export function describeSmsContract(name: string, factory: HarnessFactory<SmsProvider>): void {
  describe(`SmsProvider contract: ${name}`, () => {
    const harness = withHarness(factory);

    it('delivers the text once and answers accepted with an id (the delivery report comes later)', async () => {
      const phone = uniquePhone();
      const outcome = await harness().provider.send({ to: phone, text: 'Sports day moved to Friday', announcementId: 'ann-1', tag: 'ann-1/user-1' });
      expect(outcome).toEqual({ result: 'accepted', providerMessageId: expect.any(String) });
      expect(await harness().delivered(phone)).toEqual([{ text: 'Sports day moved to Friday' }]);
      expectNoPersonalData([outcome], phone, 'Sports day');
    });

    it('keeps recipients apart', async () => {
      const [first, second] = [uniquePhone(), uniquePhone()];
      await harness().provider.send({ to: first, text: 'one' });
      expect(await harness().delivered(second)).toEqual([]);
      expect(await harness().delivered(first)).toHaveLength(1);
    });
  });
}

export function describeEmailContract(name: string, factory: HarnessFactory<EmailProvider>): void {
  describe(`EmailProvider contract: ${name}`, () => {
    const harness = withHarness(factory);

    it('delivers subject and text once and answers accepted under the operation id it was given', async () => {
      const address = uniqueEmail();
      const operationId = '7c9e6679-7425-840d-9d8e-2f1a3b4c5d6e';
      const outcome = await harness().provider.send({ to: address, subject: 'Term dates', text: 'School starts on Monday.', operationId });
      expect(outcome).toEqual({ result: 'accepted', providerMessageId: operationId });
      expect(await harness().delivered(address)).toEqual([{ title: 'Term dates', text: 'School starts on Monday.' }]);
      expectNoPersonalData([outcome], address, 'Term dates', 'School starts');
    });
  });
}
