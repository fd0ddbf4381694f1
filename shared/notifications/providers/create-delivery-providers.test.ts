import { describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../config';
import { createLogger } from '../../logging/logger';
import { systemClock } from '../../ports/clock';
import { cryptoRandom } from '../../ports/random';
import { LogSink } from '../../../test/helpers/log-sink';
import { createDeliveryProviders, DEFAULT_EXPO_PUSH_URL } from './create-delivery-providers';

const ACS = 'endpoint=https://res.communication.azure.com/;accesskey=cHc=';
const FAKE_EXPO = 'http://127.0.0.1:4010/--/api/v2/push';

function build(config: Pick<Config, 'appEnv' | 'notifications'>) {
  return createDeliveryProviders({
    config,
    database: {
      get: async () => {
        throw new Error('not used: nothing is sent');
      },
    },
    logger: createLogger({ service: 'test', level: 'info', destination: new LogSink() }),
    clock: systemClock,
    random: cryptoRandom,
  });
}

const kindsFor = (env: Record<string, string>) => build(loadConfig(env)).kinds;

describe('createDeliveryProviders', () => {
  it('knows the default Expo URL that loadConfig applies', () => {
    expect(loadConfig({}).notifications.expoPushUrl).toBe(DEFAULT_EXPO_PUSH_URL);
  });

  it('uses the outbox for every channel in development without provider settings', () => {
    expect(kindsFor({})).toEqual({ push: 'outbox', sms: 'outbox', email: 'outbox' });
    expect(kindsFor({ APP_ENV: 'test' })).toEqual({ push: 'outbox', sms: 'outbox', email: 'outbox' });
  });

  it('sends push to an EXPO_PUSH_URL set away from the public service, even with the outbox in use', () => {
    expect(kindsFor({ EXPO_PUSH_URL: FAKE_EXPO })).toEqual({ push: 'expo', sms: 'outbox', email: 'outbox' });
  });

  it('uses ACS per channel where its settings are complete, and Expo once real providers are configured', () => {
    expect(kindsFor({ ACS_CONNECTION_STRING: ACS, ACS_SMS_FROM: '+18005550100', ACS_EMAIL_SENDER: 'a@b.test' })).toEqual({
      push: 'expo',
      sms: 'acs',
      email: 'acs',
    });
    expect(kindsFor({ ACS_CONNECTION_STRING: ACS, ACS_EMAIL_SENDER: 'a@b.test' })).toEqual({ push: 'expo', sms: 'outbox', email: 'acs' });
  });

  it('never builds the outbox in production', () => {
    const development = loadConfig({});
    const production = { ...development, appEnv: 'production' as const };
    expect(() => build(production)).toThrow(/outbox is for development only/);
    const complete = loadConfig({ ACS_CONNECTION_STRING: ACS, ACS_SMS_FROM: '+18005550100', ACS_EMAIL_SENDER: 'a@b.test' });
    expect(build({ ...complete, appEnv: 'production' }).kinds).toEqual({ push: 'expo', sms: 'acs', email: 'acs' });
  });

  it('uses ACS with the managed identity when ACS_ENDPOINT is set, loading no SDK until the first message', () => {
    expect(kindsFor({ ACS_ENDPOINT: 'https://acs.example.communication.azure.com', ACS_SMS_FROM: '+18005550100', ACS_EMAIL_SENDER: 'a@b.test' })).toEqual({
      push: 'expo',
      sms: 'acs',
      email: 'acs',
    });
  });

  it('refuses a malformed ACS connection string at start-up', () => {
    expect(() => kindsFor({ ACS_CONNECTION_STRING: 'endpoint=https://x', ACS_SMS_FROM: '+18005550100' })).toThrow(/ACS_CONNECTION_STRING/);
  });
});
