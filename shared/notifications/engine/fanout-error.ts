/**
 * Why a fan-out message could not be handled. Thrown out of the queue function so the queue
 * redelivers the message (and, after `maxDequeueCount` failures, moves it to the poison queue);
 * `errorCode` labels the error line. The message never carries addresses, tokens or text.
 */
export class FanoutError extends Error {
  override readonly name = 'FanoutError';
  constructor(
    readonly errorCode: FanoutErrorCode,
    message: string,
  ) {
    // The code leads the message, so the stack of any error line names it.
    super(`${errorCode}: ${message}`);
  }
}

export type FanoutErrorCode =
  /** Not base64 JSON of a message of the queue's kinds (`notification-message.ts`). */
  | 'invalid_fanout_message'
  /** No such announcement (yet): its transaction may not have committed. */
  | 'announcement_not_found'
  | 'announcement_not_published'
  /** An account notice's message names no recorded notice. */
  | 'notice_not_found'
  /** Some deliveries of the batch are still owed (transient provider errors, rows held by another invocation). */
  | 'delivery_incomplete';

/** The error a provider answer becomes on an error line and in exception telemetry (code only). */
export class ProviderDeliveryError extends Error {
  override readonly name = 'ProviderDeliveryError';
  constructor(
    readonly channel: string,
    readonly providerCode: string,
  ) {
    super(`${channel} provider error ${providerCode}`);
  }
}
