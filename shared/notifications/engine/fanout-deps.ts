import type { Database } from '../../db/database';
import type { Shutdown } from '../../lifecycle/shutdown';
import type { Logger } from '../../logging/logger';
import type { Clock } from '../../ports/clock';
import type { Telemetry } from '../../telemetry/telemetry';
import type { FanoutQueue } from '../../messages/fanout-queue';
import type { DeliveryProviders } from '../../ports/delivery';
import type { Sleep } from '../../resilience/retry-with-backoff';
import type { RetryPolicy } from '../providers/retry-transient';

/** The SMS spend guard's settings (`SMS_MONTHLY_CAP_USD`, `SMS_UNIT_COST_USD`; `channels/sms-spend-guard.ts`). */
export interface SmsSpendSettings {
  monthlyCapUsd: number;
  unitCostUsd: number;
}

/** The ports and settings of the fan-out use case; the function file builds them from `AppServices`. */
export interface FanoutDeps {
  database: { get(): Promise<Database> };
  providers: DeliveryProviders;
  /** Where the first message puts the batch messages. */
  queue: FanoutQueue;
  logger: Logger;
  telemetry: Telemetry;
  clock: Clock;
  /** Recipients per batch message (`FANOUT_BATCH_SIZE`). */
  batchSize: number;
  sms: SmsSpendSettings;
  /** Transient provider errors: tries and backoff inside one invocation. */
  retry: RetryPolicy;
  sleep: Sleep;
  /** Provider requests in flight at once per invocation. */
  concurrency: number;
  /** The service's SMS number (`ACS_SMS_FROM`): replies to it are the ones applied. */
  smsFrom?: string | undefined;
  /**
   * The process's termination: once `stopping`, a batch sends nothing new; at the `deadline` the
   * providers abort what is in flight; a batch runs `track`ed, so the shutdown waits for it to
   * give back its rows before the database closes.
   */
  shutdown: Pick<Shutdown, 'stopping' | 'deadline' | 'track'>;
}

/** Provider requests one invocation keeps in flight by default. */
export const DEFAULT_DELIVERY_CONCURRENCY = 16;

