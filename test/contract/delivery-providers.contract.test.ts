import { afterEach, describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../../shared/errors/dependency-unavailable';
import { loadConfig } from '../../shared/config';
import { createLogger } from '../../shared/logging/logger';
import { systemClock } from '../../shared/ports/clock';
import { cryptoRandom } from '../../shared/ports/random';
import { createDeliveryProviders } from '../../shared/notifications/providers/create-delivery-providers';
import { createOutboxProviders, listOutboxDeliveries } from '../../shared/notifications/providers/outbox-provider';
import { startFakeProviders } from '../helpers/fake-providers/start-fake-providers';
import { LogSink } from '../helpers/log-sink';
import { describeAcsEmailMappings, describeAcsIdentityPath, describeAcsSmsMappings } from './acs-mappings';
import { describeEmailContract, describePushContract, describeSmsContract } from './delivery-provider-contract';
import {
  acsEmailHarness,
  acsSmsHarness,
  expoHarness,
  openOutbox,
  outboxHarness,
  uniqueEmail,
  uniquePhone,
  uniquePushToken,
} from './delivery-provider-harness';
import { describeExpoMappings } from './expo-push-mappings';

// Every adapter of each port keeps the same promises.
describePushContract('Expo (fake Expo push service)', expoHarness());
describePushContract('outbox (SQLite)', outboxHarness('push'));
describeSmsContract('ACS SMS (fake ACS)', acsSmsHarness());
describeSmsContract('outbox (SQLite)', outboxHarness('sms'));
describeEmailContract('ACS e-mail (fake ACS)', acsEmailHarness());
describeEmailContract('outbox (SQLite)', outboxHarness('email'));

// How the real adapters read every answer of their provider.
describeExpoMappings();
describeAcsSmsMappings();
describeAcsEmailMappings();
describeAcsIdentityPath();

describe('outbox providers', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('records what a developer needs, and logs only the channel and the announcement id', async () => {
    const { testDb, sink, providers } = await openOutbox();
    cleanups.push(testDb.dispose);
    const [token, phone, address] = [uniquePushToken(), uniquePhone(), uniqueEmail()];
    await providers.push.send([{ to: token, title: 'Push title', body: 'Push body', data: { announcementId: 'ann-push' } }]);
    await providers.sms.send({ to: phone, text: 'Sms text', announcementId: 'ann-sms' });
    await providers.email.send({ to: address, subject: 'Mail subject', text: 'Mail text', announcementId: 'ann-mail' });

    const rows = await listOutboxDeliveries(testDb.db);
    expect(rows.map(({ channel, announcementId, recipient, title, messageText }) => ({ channel, announcementId, recipient, title, messageText })))
      .toEqual(expect.arrayContaining([
        { channel: 'push', announcementId: 'ann-push', recipient: token, title: 'Push title', messageText: 'Push body' },
        { channel: 'sms', announcementId: 'ann-sms', recipient: phone, title: null, messageText: 'Sms text' },
        { channel: 'email', announcementId: 'ann-mail', recipient: address, title: 'Mail subject', messageText: 'Mail text' },
      ]));
    expect(await listOutboxDeliveries(testDb.db, { announcementId: 'ann-sms' })).toHaveLength(1);

    const lines = sink.withMessage('outbox delivery');
    expect(lines.map((line) => [line.level, line.channel, line.announcementId])).toEqual([
      ['info', 'push', 'ann-push'],
      ['info', 'sms', 'ann-sms'],
      ['info', 'email', 'ann-mail'],
    ]);
    for (const leak of [token, phone, address, 'Push title', 'Push body', 'Sms text', 'Mail subject', 'Mail text']) {
      expect(sink.text).not.toContain(leak);
    }
  });

  it('answers a transient error when the database cannot be opened', async () => {
    const providers = createOutboxProviders({
      database: {
        get: async () => {
          throw new DependencyUnavailableError('database', { cause: new Error('down') });
        },
      },
      logger: createLogger({ service: 'contract', level: 'info', destination: new LogSink() }),
      clock: systemClock,
      random: cryptoRandom,
    });
    expect(await providers.sms.send({ to: uniquePhone(), text: 'x' })).toEqual({
      result: 'provider_error',
      code: 'database_unavailable',
      transient: true,
    });
  });
});

describe('createDeliveryProviders against the fake providers', () => {
  it('wires the real adapters from configuration that points at the fakes', async () => {
    const fakes = await startFakeProviders({ expo: { accessToken: 'expo-access-token-xyz' } });
    const { testDb } = await openOutbox();
    try {
      const built = createDeliveryProviders({
        config: loadConfig({ APP_ENV: 'development', ...fakes.env }),
        database: { get: async () => testDb.db },
        logger: createLogger({ service: 'contract', level: 'info', destination: new LogSink() }),
        clock: systemClock,
        random: cryptoRandom,
      });
      expect(built.kinds).toEqual({ push: 'expo', sms: 'acs', email: 'acs' });
      const [token, phone, address] = [uniquePushToken(), uniquePhone(), uniqueEmail()];
      expect((await built.push.send([{ to: token, title: 't', body: 'b', data: { announcementId: 'a' } }]))[0]?.result).toBe('success');
      expect((await built.sms.send({ to: phone, text: 'x' })).result).toBe('accepted');
      expect((await built.email.send({ to: address, subject: 's', text: 'x' })).result).toBe('accepted');
      expect([fakes.expo.deliveriesTo(token).length, fakes.acs.smsTo(phone).length, fakes.acs.emailsTo(address).length]).toEqual([1, 1, 1]);
      expect(fakes.acs.requests.rejectedSignatures).toBe(0);
      expect(await listOutboxDeliveries(testDb.db)).toEqual([]);
    } finally {
      await Promise.all([fakes.close(), testDb.dispose()]);
    }
  });
});
