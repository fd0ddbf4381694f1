import type { Config } from '../../config';
import type { DatabaseProvider } from '../../db/lazy-database';
import type { ShutdownSignals } from '../../lifecycle/shutdown';
import type { Logger } from '../../logging/logger';
import type { Clock } from '../../ports/clock';
import type { Random } from '../../ports/random';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-transient';
import { createAcsEmailProvider } from './acs-email-provider';
import { managedIdentity } from '../../azure/managed-identity';
import type { AcsPipelineSettings } from './acs-pipeline';
import { createAcsSmsProvider } from './acs-sms-provider';
import type { Channel, DeliveryProviders } from '../../ports/delivery';
import { createExpoPushProvider } from './expo-push-provider';
import { createOutboxProviders } from './outbox-provider';
import type { Fetch } from './provider-http';

/**
 * Chooses each channel's provider from `config.notifications`:
 * - SMS: ACS when ACS is configured (`ACS_ENDPOINT` with the managed identity, or
 *   `ACS_CONNECTION_STRING`) and `ACS_SMS_FROM` is set; e-mail: ACS when ACS is configured and
 *   `ACS_EMAIL_SENDER` is set; otherwise, outside production, the outbox (production
 *   configuration requires all of them, so it never gets there).
 * - Push: Expo, except outside production when the outbox is in use (no ACS settings) and
 *   `EXPO_PUSH_URL` still names Expo's public service: a developer machine without provider
 *   settings should not reach out to Expo, while a local fake Expo server (tests, benchmark) is
 *   used whenever `EXPO_PUSH_URL` points at it.
 */

/** The Expo push service, `EXPO_PUSH_URL`'s default in `loadConfig`. */
export const DEFAULT_EXPO_PUSH_URL = 'https://exp.host/--/api/v2/push';

export type ProviderKind = 'expo' | 'acs' | 'outbox';

export interface BuiltDeliveryProviders extends DeliveryProviders {
  /** Which provider serves each channel: for the start-up log line and docs/notifications.md, "Seeing a fan-out locally". */
  kinds: Record<Channel, ProviderKind>;
}

export interface CreateDeliveryProvidersOptions {
  config: Pick<Config, 'appEnv' | 'notifications'>;
  /** The outbox's table lives here. */
  database: Pick<DatabaseProvider, 'get'>;
  logger: Logger;
  clock: Clock;
  random: Random;
  /** Tests point the Expo adapter at a local fake server through their own `fetch`. */
  fetch?: Fetch;
  requestTimeoutMs?: number;
  /** The ACS SDK clients' retries (default: the fan-out's `DEFAULT_RETRY_POLICY`). */
  retry?: RetryPolicy;
  /** Tests: extra SDK client options (a fake's certificate) or a credential for the identity path. */
  acs?: Pick<AcsPipelineSettings, 'clientOptions' | 'credential'>;
  /** The process's shutdown: the remote providers start nothing once it is stopping and abort at its deadline. */
  shutdown?: ShutdownSignals;
}

/**
 * Builds the push, SMS and e-mail providers. Throws for settings no provider can run with (a
 * malformed ACS connection string, a channel without provider in production).
 */
export function createDeliveryProviders(options: CreateDeliveryProvidersOptions): BuiltDeliveryProviders {
  const { appEnv, notifications } = options.config;
  const production = appEnv === 'production';
  const shared = {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    ...(options.shutdown ? { shutdown: options.shutdown } : {}),
    clock: options.clock,
  };
  const outbox = (channel: Channel) => {
    if (production) throw new Error(`no ${channel} provider is configured, and the outbox is for development only`);
    return createOutboxProviders(options);
  };

  const pushToOutbox = !production && notifications.useOutbox && notifications.expoPushUrl === DEFAULT_EXPO_PUSH_URL;
  const push = pushToOutbox
    ? outbox('push').push
    : createExpoPushProvider({ baseUrl: notifications.expoPushUrl, accessToken: notifications.expoAccessToken, ...shared });

  const { acs, acsSmsFrom, acsEmailSender } = notifications;
  const pipeline: AcsPipelineSettings = {
    retry: options.retry ?? DEFAULT_RETRY_POLICY,
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    ...(acs?.kind === 'identity' ? { credential: managedIdentity(acs.clientId) } : {}),
    ...(options.shutdown ? { shutdown: options.shutdown } : {}),
    ...options.acs,
  };
  const sms = acs && acsSmsFrom ? createAcsSmsProvider({ access: acs, from: acsSmsFrom, ...pipeline }) : outbox('sms').sms;
  const email =
    acs && acsEmailSender ? createAcsEmailProvider({ access: acs, senderAddress: acsEmailSender, ...pipeline }) : outbox('email').email;

  return {
    push,
    sms,
    email,
    kinds: {
      push: pushToOutbox ? 'outbox' : 'expo',
      sms: acs && acsSmsFrom ? 'acs' : 'outbox',
      email: acs && acsEmailSender ? 'acs' : 'outbox',
    },
  };
}
