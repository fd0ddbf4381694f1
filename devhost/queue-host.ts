import { randomUUID } from 'node:crypto';
import { QueueServiceClient } from '@azure/storage-queue';
import { errorFields, type Logger } from '../shared/logging/logger';
import { resolveSettingExpressions, storageConnectionString, type AppSettings } from './app-settings';
import type { FunctionRegistration } from './functions-core-shim';
import type { QueueSettings } from './host-json';
import { createInvocationContext, triggerOf, type HookRunner } from './invocation';
import { invocationTraceContext } from './invocation-trace';
import { startQueueListener, type QueueListener } from './queue-listener';

export interface QueueHostOptions {
  registrations: readonly FunctionRegistration[];
  hooks: HookRunner;
  logger: Logger;
  settings: AppSettings;
  /** `AzureWebJobsStorage` as the validated config resolved it. */
  defaultConnectionString: string | undefined;
  queueSettings: QueueSettings;
}

export interface QueueHost {
  count: number;
  /** Stops every listener; `drainMs`: how long to wait for messages in flight (default: until they finish). */
  stop(drainMs?: number): Promise<void>;
}

/** Queue names as Azure Storage accepts them (the host lower-cases binding names first). */
const QUEUE_NAME = /^(?=.{3,63}$)[a-z0-9](?:[a-z0-9]|-(?!-))*[a-z0-9]$/;

/**
 * Starts a listener for every `queueTrigger` function. A function whose queue name or connection
 * cannot be resolved is logged and left out, as the real host marks it in error and runs the rest.
 */
export function startQueueListeners(options: QueueHostOptions): QueueHost {
  const services = new Map<string, QueueServiceClient>();
  const listeners: QueueListener[] = [];
  const notStarted = (functionName: string, reason: string): void => {
    options.logger.error({ functionName, reason, errorCode: 'configuration_error', ...errorFields(new Error(reason)) }, 'queue function not started');
  };
  for (const registration of options.registrations) {
    const trigger = triggerOf(registration.metadata);
    if (trigger?.type.toLowerCase() !== 'queuetrigger') continue;
    const functionName = registration.metadata.name;
    let queueName: string;
    try {
      queueName = resolveSettingExpressions(String(trigger.queueName ?? ''), options.settings).toLowerCase();
    } catch (error) {
      notStarted(functionName, (error as Error).message);
      continue;
    }
    if (!QUEUE_NAME.test(queueName)) {
      notStarted(functionName, 'invalid queue name');
      continue;
    }
    const connection = storageConnectionString(trigger.connection, options.settings, options.defaultConnectionString);
    if (!connection.value) {
      notStarted(functionName, `connection setting "${connection.name}" is not set`);
      continue;
    }
    let service = services.get(connection.value);
    try {
      service ??= QueueServiceClient.fromConnectionString(connection.value, {
        retryOptions: { maxTries: 3, maxRetryDelayInMs: 2_000, tryTimeoutInMs: 30_000 },
      });
    } catch {
      // Never the value (nor the SDK's message about it): it holds the account key.
      notStarted(functionName, `connection setting "${connection.name}" is not a valid connection string`);
      continue;
    }
    services.set(connection.value, service);
    listeners.push(
      startQueueListener({
        functionName,
        queue: service.getQueueClient(queueName),
        poisonQueue: service.getQueueClient(`${queueName}-poison`),
        settings: options.queueSettings,
        logger: options.logger,
        invoke: async (input, triggerMetadata) => {
          const context = createInvocationContext({
            registration,
            invocationId: randomUUID(),
            traceContext: invocationTraceContext(),
            triggerMetadata,
            logger: options.logger,
          });
          await options.hooks.invoke(registration.handler, context, [input]);
        },
      }),
    );
  }
  return { count: listeners.length, stop: async (drainMs) => void (await Promise.all(listeners.map((listener) => listener.stop(drainMs)))) };
}
