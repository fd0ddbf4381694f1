import type { AcsAccess } from '../../shared/config';
import { migrateDatabase } from '../../shared/db/migrate';
import type { AcsPipelineSettings } from '../../shared/notifications/providers/acs-pipeline';
import { createLogger, type Logger } from '../../shared/logging/logger';
import { systemClock } from '../../shared/ports/clock';
import { cryptoRandom } from '../../shared/ports/random';
import { createAcsEmailProvider } from '../../shared/notifications/providers/acs-email-provider';
import { createAcsSmsProvider } from '../../shared/notifications/providers/acs-sms-provider';
import type { EmailProvider, PushProvider, SmsProvider } from '../../shared/ports/delivery';
import { createExpoPushProvider } from '../../shared/notifications/providers/expo-push-provider';
import { createOutboxProviders, listOutboxDeliveries } from '../../shared/notifications/providers/outbox-provider';
import { startFakeAcs, type FakeAcs } from '../helpers/fake-providers/fake-acs';
import { startFakeExpoPush, type FakeExpoPush } from '../helpers/fake-providers/fake-expo-push';
import { FAKE_EMAIL_SENDER, FAKE_SMS_FROM } from '../helpers/fake-providers/start-fake-providers';
import { LogSink } from '../helpers/log-sink';
import { sqliteTestDatabase, type TestDatabase, type TestDatabaseFactory } from './test-databases';

/**
 * One adapter of a delivery port, set up for the shared contract: the provider, and a way to read
 * back what actually reached the far side (the fake server's records, or the outbox table).
 */
export interface ProviderHarness<P> {
  provider: P;
  /** The deliveries recorded for `recipient` (token, phone number or address) on the far side. */
  delivered(recipient: string): Promise<{ title?: unknown; text: unknown }[]>;
  dispose(): Promise<void>;
}

export type HarnessFactory<P> = () => Promise<ProviderHarness<P>>;

/** Unique per call, so tests never see each other's recipients. */
let serial = 0;
export const uniquePushToken = () => `ExponentPushToken[contract-${process.pid}-${(serial += 1)}]`;
export const uniquePhone = () => `+1555${String(process.pid % 1000).padStart(3, '0')}${String((serial += 1) % 10000).padStart(4, '0')}`;
export const uniqueEmail = () => `recipient-${process.pid}-${(serial += 1)}@example.test`;

/** Adapter options for tests: a short deadline per try. */
export const TEST_TIMEOUT_MS = 2_000;

/** The ACS SDK clients' settings in tests: fast retries (the SDK's backoff from 1 ms). */
export const TEST_ACS_PIPELINE: AcsPipelineSettings = { retry: { tries: 3, firstDelayMs: 1, factor: 4 }, requestTimeoutMs: TEST_TIMEOUT_MS };

/** The fake ACS by its connection string (an access key's HMAC signature). */
export const fakeAccess = (fake: FakeAcs, connectionString = fake.connectionString): AcsAccess => ({
  kind: 'connection-string',
  connectionString,
  endpoint: fake.endpoint,
});

export function expoHarness(start: () => Promise<FakeExpoPush> = () => startFakeExpoPush()): HarnessFactory<PushProvider> {
  return async () => {
    const fake = await start();
    return {
      provider: createExpoPushProvider({ baseUrl: fake.url, requestTimeoutMs: TEST_TIMEOUT_MS }),
      delivered: async (token) => fake.deliveriesTo(token).map((d) => ({ title: d.title, text: d.body })),
      dispose: fake.close,
    };
  };
}

export function acsSmsHarness(): HarnessFactory<SmsProvider> {
  return async () => {
    const fake = await startFakeAcs();
    return {
      provider: createAcsSmsProvider({ access: fakeAccess(fake), from: FAKE_SMS_FROM, ...TEST_ACS_PIPELINE }),
      delivered: async (phone) => fake.smsTo(phone).map((d) => ({ text: d.message })),
      dispose: fake.close,
    };
  };
}

export function acsEmailHarness(): HarnessFactory<EmailProvider> {
  return async () => {
    const fake = await startFakeAcs();
    return {
      provider: createAcsEmailProvider({ access: fakeAccess(fake), senderAddress: FAKE_EMAIL_SENDER, ...TEST_ACS_PIPELINE }),
      delivered: async (address) => fake.emailsTo(address).map((d) => ({ title: d.subject, text: d.plainText })),
      dispose: fake.close,
    };
  };
}

/** The outbox on a fresh, migrated database (a SQLite file unless `factory` says otherwise), logging into `sink`. */
export async function openOutbox(sink = new LogSink(), factory: TestDatabaseFactory = sqliteTestDatabase): Promise<{
  testDb: TestDatabase;
  logger: Logger;
  sink: LogSink;
  providers: ReturnType<typeof createOutboxProviders>;
}> {
  const testDb = await factory();
  await migrateDatabase(testDb.db);
  const logger = createLogger({ service: 'contract', level: 'info', destination: sink });
  const providers = createOutboxProviders({
    database: { get: async () => testDb.db },
    logger,
    clock: systemClock,
    random: cryptoRandom,
  });
  return { testDb, logger, sink, providers };
}

export function outboxHarness<C extends 'push' | 'sms' | 'email'>(
  channel: C,
  factory: TestDatabaseFactory = sqliteTestDatabase,
): HarnessFactory<ReturnType<typeof createOutboxProviders>[C]> {
  return async () => {
    const { testDb, providers } = await openOutbox(new LogSink(), factory);
    return {
      provider: providers[channel],
      delivered: async (recipient) =>
        (await listOutboxDeliveries(testDb.db, { channel }))
          .filter((row) => row.recipient === recipient)
          .map((row) => ({ title: row.title ?? undefined, text: row.messageText })),
      dispose: testDb.dispose,
    };
  };
}
