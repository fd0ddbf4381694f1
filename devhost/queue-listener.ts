import { setTimeout as sleep } from 'node:timers/promises';
import type { TriggerMetadata } from '@azure/functions';
import type { QueueClient } from '@azure/storage-queue';
import { errorFields, type Logger } from '../shared/logging/logger';
import type { QueueSettings } from './host-json';
import { decodeMessageText, queueInput, queueTriggerMetadata, type ReceivedMessage } from './queue-message';

/** How long a received message stays invisible while the function runs (the extension's default). */
const PROCESSING_VISIBILITY_SECONDS = 10 * 60;
const MIN_POLLING_INTERVAL_MS = 100;

export interface QueueListenerOptions {
  functionName: string;
  queue: QueueClient;
  /** `<queue>-poison`, created when the first message goes there. */
  poisonQueue: QueueClient;
  settings: QueueSettings;
  logger: Logger;
  /** Runs the function for one message; a throw (or rejection) is a failed attempt. */
  invoke(input: unknown, triggerMetadata: TriggerMetadata, message: ReceivedMessage): Promise<void>;
  now?: () => Date;
}

export interface QueueListener {
  /** Stops polling and waits for messages being processed. */
  stop(): Promise<void>;
}

/**
 * Polls one queue like the Storage Queues extension: batches of `batchSize`, a new batch once no
 * more than `newBatchThreshold` messages are in flight, exponential back-off up to
 * `maxPollingInterval` while the queue is empty. A handled message is deleted; a failed one becomes
 * visible again after `visibilityTimeout`, and goes to `<queue>-poison` once its dequeue count
 * reaches `maxDequeueCount` (at once when it cannot be decoded). No message can stop the loop.
 */
export function startQueueListener(options: QueueListenerOptions): QueueListener {
  const { queue, settings, logger, functionName } = options;
  const stopping = new AbortController();
  const inFlight = new Set<Promise<void>>();
  const ids = { functionName, queueName: queue.name };
  let pollFailing = false;
  let queueReady = false;
  let poisonReady = false;

  const moveToPoison = async (message: ReceivedMessage, reason: string, cause: unknown): Promise<void> => {
    try {
      if (!poisonReady) {
        await options.poisonQueue.createIfNotExists();
        poisonReady = true;
      }
      await options.poisonQueue.sendMessage(message.messageText);
      await queue.deleteMessage(message.messageId, message.popReceipt);
      logger.error(
        {
          ...ids,
          messageId: message.messageId,
          dequeueCount: message.dequeueCount,
          poisonQueue: options.poisonQueue.name,
          reason,
          errorCode: 'poison_message',
          ...errorFields(cause),
        },
        'queue message moved to poison queue',
      );
    } catch (error) {
      logger.error(
        { ...ids, messageId: message.messageId, errorCode: 'internal_error', ...errorFields(error) },
        'queue message could not be moved to the poison queue',
      );
    }
  };

  const processMessage = async (message: ReceivedMessage): Promise<void> => {
    const decoded = decodeMessageText(message.messageText, settings.messageEncoding);
    if (!decoded.ok) return moveToPoison(message, decoded.reason, new Error(`Queue message is ${decoded.reason}.`));
    const metadata = queueTriggerMetadata(message, decoded.text, functionName, options.now?.() ?? new Date());
    try {
      await options.invoke(queueInput(decoded.text), metadata, message);
    } catch (error) {
      logger.error(
        { ...ids, messageId: message.messageId, dequeueCount: message.dequeueCount, errorCode: 'internal_error', ...errorFields(error) },
        'function failed',
      );
      if (message.dequeueCount >= settings.maxDequeueCount) return moveToPoison(message, 'maxDequeueCount reached', error);
      try {
        await queue.updateMessage(message.messageId, message.popReceipt, undefined, Math.round(settings.visibilityTimeoutMs / 1000));
      } catch (updateError) {
        logger.warn({ ...ids, messageId: message.messageId, errorType: errorType(updateError) }, 'failed message not released; it reappears when its lease ends');
      }
      return;
    }
    try {
      await queue.deleteMessage(message.messageId, message.popReceipt);
    } catch (deleteError) {
      logger.warn({ ...ids, messageId: message.messageId, errorType: errorType(deleteError) }, 'handled message could not be deleted');
    }
  };

  const track = (message: ReceivedMessage): void => {
    const work = processMessage(message).catch((error: unknown) => {
      logger.error({ ...ids, messageId: message.messageId, errorCode: 'internal_error', ...errorFields(error) }, 'queue message processing failed');
    });
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  };

  const pause = async (milliseconds: number): Promise<void> => {
    await sleep(milliseconds, undefined, { signal: stopping.signal }).catch(() => undefined);
  };

  const poll = async (): Promise<void> => {
    let delay = Math.min(MIN_POLLING_INTERVAL_MS, settings.maxPollingIntervalMs);
    while (!stopping.signal.aborted) {
      if (inFlight.size > settings.newBatchThreshold) {
        await Promise.race([...inFlight, pause(settings.maxPollingIntervalMs)]);
        continue;
      }
      let messages: ReceivedMessage[];
      try {
        if (!queueReady) {
          await queue.createIfNotExists({ abortSignal: stopping.signal });
          queueReady = true;
        }
        const response = await queue.receiveMessages({
          numberOfMessages: settings.batchSize,
          visibilityTimeout: PROCESSING_VISIBILITY_SECONDS,
          abortSignal: stopping.signal,
        });
        messages = response.receivedMessageItems;
        if (pollFailing) logger.info(ids, 'queue polling recovered');
        pollFailing = false;
      } catch (error) {
        if (stopping.signal.aborted) break;
        if (!pollFailing) logger.warn({ ...ids, errorType: errorType(error) }, 'queue poll failed; retrying');
        pollFailing = true;
        await pause(settings.maxPollingIntervalMs);
        continue;
      }
      if (messages.length === 0) {
        await pause(delay);
        delay = Math.min(delay * 2, settings.maxPollingIntervalMs);
        continue;
      }
      delay = Math.min(MIN_POLLING_INTERVAL_MS, settings.maxPollingIntervalMs);
      for (const message of messages) track(message);
    }
  };

  const polling = poll();
  return {
    stop: async () => {
      stopping.abort();
      await polling;
      await Promise.all(inFlight);
    },
  };
}

/** Storage errors carry request URLs in their messages; the log gets their kind only. */
function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, statusCode, name } = error as { code?: unknown; statusCode?: unknown; name?: unknown };
    return [name, code, statusCode].filter((part) => part !== undefined).join(' ');
  }
  return typeof error;
}
