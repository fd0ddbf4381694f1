import type { QueueClient } from '@azure/storage-queue';
import type { Config } from '../config';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { createQueueServiceClient } from '../storage/queue-service';
import { encodeFanoutMessage, FANOUT_QUEUE_NAME, type FanoutMessage } from './fanout-message';

/** The port through which publishing (and the fan-out itself) enqueues fan-out work. */
export interface FanoutQueue {
  enqueue(message: FanoutMessage): Promise<void>;
}

/**
 * The storage-queue adapter (`AzureWebJobsStorage`, or the account by managed identity; Azurite locally). The queue is created on
 * first use. An unreachable queue service is a `DependencyUnavailableError('queue')`: 503, not 500.
 */
export function storageFanoutQueue(storage: NonNullable<Config['queueStorage']>, queueName = FANOUT_QUEUE_NAME): FanoutQueue {
  const send = storageQueueSender(storage, queueName);
  return {
    async enqueue(message) {
      await send(encodeFanoutMessage(message));
    },
  };
}

/**
 * Sends already encoded message texts to one storage queue, created on first use; every other
 * message kind of the queue (account notices) goes through it too. Throws
 * `DependencyUnavailableError('queue')` when the queue service cannot be reached.
 */
export function storageQueueSender(storage: NonNullable<Config['queueStorage']>, queueName: string): (text: string) => Promise<void> {
  let client: Promise<QueueClient> | undefined;
  const queue = (): Promise<QueueClient> => {
    client ??= (async () => {
      const created = createQueueServiceClient(storage, { retryOptions: { maxTries: 3 } }).getQueueClient(queueName);
      await created.createIfNotExists();
      return created;
    })().catch((error: unknown) => {
      client = undefined;
      throw error;
    });
    return client;
  };
  return async (text) => {
    try {
      await (await queue()).sendMessage(text);
    } catch (error) {
      throw new DependencyUnavailableError('queue', { cause: error });
    }
  };
}

/** Where `AzureWebJobsStorage` is not set: enqueueing answers 503 instead of dropping the fan-out silently. */
export function unconfiguredFanoutQueue(): FanoutQueue {
  return {
    async enqueue() {
      throw new DependencyUnavailableError('queue', { cause: new Error('AzureWebJobsStorage is not set') });
    },
  };
}

/** A queue that keeps messages in memory, for unit tests of code that enqueues. */
export function inMemoryFanoutQueue(): FanoutQueue & { messages: FanoutMessage[] } {
  const messages: FanoutMessage[] = [];
  return {
    messages,
    async enqueue(message) {
      messages.push(message);
    },
  };
}
