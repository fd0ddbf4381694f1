import type { AppServices } from '../composition-root';
import { createLogger, type Logger } from '../logging/logger';
import {
  createDeliveryProviders,
  DEFAULT_DELIVERY_CONCURRENCY,
  DEFAULT_RETRY_POLICY,
  type BuiltDeliveryProviders,
  type FanoutDeps,
} from '../notifications';
import type { DeliveryProviders } from '../ports/delivery';
import { realSleep } from '../resilience/retry-with-backoff';

/** The `service` of the fan-out's log lines (contract section 3: `notifications`). */
export const FANOUT_SERVICE_NAME = 'notifications';

export interface FanoutServiceOptions {
  /** Default: the providers `config.notifications` selects (ACS, Expo, or the development outbox). */
  providers?: DeliveryProviders;
  /** Default: a logger of the `notifications` service at the configured level, to stdout. */
  logger?: Logger;
  sleep?: FanoutDeps['sleep'];
  concurrency?: number;
  /** Default: the process's (`services.shutdown`). */
  shutdown?: FanoutDeps['shutdown'];
}

/**
 * The fan-out's ports from the process's services: the queue function builds them once; tests and
 * the benchmark pass their own providers, logger or sleep.
 */
export function buildFanoutDeps(
  services: AppServices,
  options: FanoutServiceOptions = {},
): FanoutDeps & { providerKinds?: BuiltDeliveryProviders['kinds'] } {
  const { config } = services;
  const logger =
    options.logger ??
    createLogger({ service: FANOUT_SERVICE_NAME, level: config.logLevel, pretty: config.logPretty, onErrorLine: services.onErrorLine });
  const shutdown = options.shutdown ?? services.shutdown;
  const built = options.providers
    ? undefined
    : createDeliveryProviders({ config, database: services.database, logger, clock: services.clock, random: services.random, shutdown });
  return {
    database: services.database,
    providers: options.providers ?? (built as BuiltDeliveryProviders),
    queue: services.fanoutQueue,
    logger,
    telemetry: services.telemetry,
    clock: services.clock,
    batchSize: config.notifications.batchSize,
    sms: { monthlyCapUsd: config.notifications.smsMonthlyCapUsd, unitCostUsd: config.notifications.smsUnitCostUsd },
    retry: DEFAULT_RETRY_POLICY,
    sleep: options.sleep ?? realSleep,
    concurrency: options.concurrency ?? DEFAULT_DELIVERY_CONCURRENCY,
    smsFrom: config.notifications.acsSmsFrom,
    shutdown,
    ...(built ? { providerKinds: built.kinds } : {}),
  };
}

const builtFanoutDeps = new WeakMap<AppServices, ReturnType<typeof buildFanoutDeps>>();

/**
 * The fan-out's ports of these services, built on the first fan-out message, report or timer run
 * (not at start: most of a process's life needs none of them), then shared by those functions.
 * Says which providers it chose, once per services.
 */
export function fanoutDepsOf(services: AppServices): ReturnType<typeof buildFanoutDeps> {
  let deps = builtFanoutDeps.get(services);
  if (!deps) {
    deps = buildFanoutDeps(services);
    builtFanoutDeps.set(services, deps);
    const { providerKinds, logger } = deps;
    if (providerKinds) logger.info({ providers: providerKinds }, 'notification providers selected');
  }
  return deps;
}
