import type { QueueClient } from '@azure/storage-queue';
import type { Config } from '../../config';
import { createQueueServiceClient } from '../../storage/queue-service';
import { FANOUT_QUEUE_NAME } from '../../messages/fanout-message';

/** Where the host moves a fan-out message whose last try failed (`<queue>-poison`, as the Functions host names it). */
export const FANOUT_POISON_QUEUE_NAME = `${FANOUT_QUEUE_NAME}-poison`;

/** A message taken off the poison queue, hidden from other readers until it is deleted or released. */
export interface PoisonMessage {
  messageId: string;
  popReceipt: string;
  /** The queue text as the host moved it (base64 of the JSON, like the fan-out queue's). */
  text: string;
  /** When the message reached the poison queue. */
  insertedOn: Date | undefined;
}

/** The port through which a re-drive reads the poison queue. */
export interface PoisonQueue {
  /**
   * Takes up to `count` visible messages and hides them for `hideSeconds`.
   * @returns none when the queue is empty or was never made (nothing was ever poisoned).
   */
  receive(count: number, hideSeconds: number): Promise<PoisonMessage[]>;
  delete(message: PoisonMessage): Promise<void>;
  /** Makes a received message visible again now, unchanged. */
  release(message: PoisonMessage): Promise<void>;
}

/**
 * The poison queue in the app's storage account (`AzureWebJobsStorage`, or the account by
 * managed identity; Azurite locally). It is never created here: the host makes it with its first message.
 */
export function storagePoisonQueue(storage: NonNullable<Config['queueStorage']>, queueName = FANOUT_POISON_QUEUE_NAME): PoisonQueue {
  let client: QueueClient | undefined;
  const queue = (): QueueClient => (client ??= createQueueServiceClient(storage, { retryOptions: { maxTries: 3 } }).getQueueClient(queueName));
  return {
    async receive(count, hideSeconds) {
      try {
        const response = await queue().receiveMessages({ numberOfMessages: count, visibilityTimeout: hideSeconds });
        return response.receivedMessageItems.map((item) => ({
          messageId: item.messageId,
          popReceipt: item.popReceipt,
          text: item.messageText,
          insertedOn: item.insertedOn,
        }));
      } catch (error) {
        if (statusOf(error) === 404) return [];
        throw error;
      }
    },
    async delete(message) {
      await queue().deleteMessage(message.messageId, message.popReceipt);
    },
    async release(message) {
      await queue().updateMessage(message.messageId, message.popReceipt, undefined, 0);
    },
  };
}

function statusOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { statusCode?: unknown }).statusCode : undefined;
}
