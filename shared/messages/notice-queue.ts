import type { Config } from '../config';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { FANOUT_QUEUE_NAME } from './fanout-message';
import { storageQueueSender } from './fanout-queue';
import { encodeNoticeMessage, type NoticeMessage } from './notice-message';

/**
 * The port through which an account notice is put on the `notification-fanout` queue, next to the
 * announcement fan-out's messages: the same function delivers both, with the same retries and
 * poison queue.
 */
export interface NoticeQueue {
  enqueue(message: NoticeMessage): Promise<void>;
}

/** The storage-queue adapter (`AzureWebJobsStorage`); an unreachable queue is `DependencyUnavailableError('queue')`. */
export function storageNoticeQueue(storage: NonNullable<Config['queueStorage']>, queueName = FANOUT_QUEUE_NAME): NoticeQueue {
  const send = storageQueueSender(storage, queueName);
  return { enqueue: (message) => send(encodeNoticeMessage(message)) };
}

/** Where `AzureWebJobsStorage` is not set: the notice stays owed in its table (nothing is lost). */
export function unconfiguredNoticeQueue(): NoticeQueue {
  return {
    async enqueue() {
      throw new DependencyUnavailableError('queue', { cause: new Error('AzureWebJobsStorage is not set') });
    },
  };
}

/** A queue that keeps messages in memory, for tests of code that enqueues notices. */
export function inMemoryNoticeQueue(): NoticeQueue & { messages: NoticeMessage[] } {
  const messages: NoticeMessage[] = [];
  return {
    messages,
    async enqueue(message) {
      messages.push(message);
    },
  };
}
