import { setTimeout as sleep } from 'node:timers/promises';
import type { TriggerMetadata } from '@azure/functions';
import type { QueueClient } from '@azure/storage-queue';
import { errorFields, type Logger } from '../shared/logging/logger';
import type { QueueSettings } from './host-json';
import { decodeMessageText, queueInput, queueTriggerMetadata, type ReceivedMessage } from './queue-message';

/**
 * How long a received message stays invisible while the function runs, and when that is renewed:
 * the Functions host's Storage Queues extension takes 10 minutes at the dequeue and renews the
 * invisibility when it is halfway to expiring (`QueueListener` and
 * `UpdateQueueMessageVisibilityCommand`, azure-sdk-for-net; not configurable), so the local host does
 * the same: a message whose host was killed comes back only 10 minutes later. A crashed fan-out batch
 * does not wait for it: its ledger rows are re-driven by `fanout-recovery-timer` once their one-minute
 * lease is over (`shared/notifications/jobs/redrive-stalled-batches.ts`).
 */
export const PROCESSING_VISIBILITY_SECONDS = 600;
const VISIBILITY_RENEWAL_MS = (PROCESSING_VISIBILITY_SECONDS * 1000) / 2;
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
  /** Tests only: the processing invisibility and its renewal (default: the host's 10 minutes, renewed halfway). */
  processingVisibility?: { seconds: number; renewEveryMs: number };
}

export interface QueueListener {
  /**
   * Stops polling and waits for messages being processed: at most `drainMs` when given (a shutdown
   * inside the platform's grace period); a message still running then reappears when its
   * processing visibility ends.
   */
  stop(drainMs?: number): Promise<void>;
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
  const visibility = options.processingVisibility ?? { seconds: PROCESSING_VISIBILITY_SECONDS, renewEveryMs: VISIBILITY_RENEWAL_MS };
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
    const lease = keepInvisible(message);
    try {
      await options.invoke(queueInput(decoded.text), metadata, message);
    } catch (error) {
      await lease.stop();
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
    await lease.stop();
    try {
      await queue.deleteMessage(message.messageId, message.popReceipt);
    } catch (deleteError) {
      logger.warn({ ...ids, messageId: message.messageId, errorType: errorType(deleteError) }, 'handled message could not be deleted');
    }
  };

  /**
   * Renews the message's invisibility while its function runs. Each renewal gives a new pop receipt,
   * which the message carries from then on (the delete and the release need the latest).
   */
  const keepInvisible = (message: ReceivedMessage): { stop(): Promise<void> } => {
    const { seconds, renewEveryMs } = visibility;
    let renewing: Promise<void> = Promise.resolve();
    const timer = setInterval(() => {
      renewing = renewing.then(async () => {
        try {
          const renewed = await queue.updateMessage(message.messageId, message.popReceipt, undefined, seconds);
          if (renewed.popReceipt) message.popReceipt = renewed.popReceipt;
        } catch (error) {
          logger.warn({ ...ids, messageId: message.messageId, errorType: errorType(error) }, 'message invisibility not renewed');
        }
      });
    }, renewEveryMs);
    timer.unref();
    return {
      stop: async () => {
        clearInterval(timer);
        await renewing;
      },
    };
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
          visibilityTimeout: visibility.seconds,
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
    stop: async (drainMs) => {
      stopping.abort();
      await polling;
      if (drainMs === undefined) {
        await Promise.all(inFlight);
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        Promise.all(inFlight).then(() => true),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), drainMs))),
      ]);
      clearTimeout(timer);
      if (!drained) logger.warn({ ...ids, inFlight: inFlight.size, drainMs }, 'queue listener stopped with messages still running');
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
