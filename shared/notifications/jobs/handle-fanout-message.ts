import { findAnnouncementById } from '../../announcements/announcement-store';
import { errorCodeOf } from '../../background/background-handler';
import { deliverBatch, type BatchResult } from './deliver-batch';
import type { FanoutDeps } from '../engine/fanout-deps';
import { FanoutError } from '../engine/fanout-error';
import { holdMessageLease, leasedMessageOf, messageLogFields } from '../engine/message-leasing';
import type { FanoutMessage } from '../../messages/fanout-message';
import { handleNoticeMessage, type NoticeResult } from './handle-notice-message';
import { decodeNotificationMessage, type NotificationMessage } from '../../messages/notification-message';
import { recordPoisonedMessage } from './record-poisoned-message';
import { splitAudience, type SplitResult } from './split-audience';

export type FanoutResult =
  | ({ kind: 'split' } & SplitResult)
  | ({ kind: 'batch' } & BatchResult)
  | ({ kind: 'notice' } & NoticeResult)
  | { kind: 'held_elsewhere' };

/** What the queue trigger knows about this try of the message. */
export interface FanoutAttempt {
  /** A failure now sends the message to the poison queue (the trigger's dequeue count reached the maximum). */
  lastAttempt: boolean;
}

/**
 * Handles one message of the `notification-fanout` queue (contract section 10): the first message
 * of a published announcement splits its audience into batch messages; a batch message delivers
 * to its recipients; an account notice's message goes to `handle-notice-message.ts`; which is
 * which is the message's `kind` (`notification-message.ts`). Everything
 * that cannot be handled now throws `FanoutError`, so the queue redelivers the message and, after
 * `maxDequeueCount` tries, moves it to the poison queue: a
 * malformed message, an announcement that is missing or not published, deliveries still owed.
 * When the last try of a valid message fails, its unfinished deliveries are marked failed first
 * (`poison/record-poisoned-message.ts`), so none stays `pending` once the message is poisoned.
 * A valid message's first write takes its lease in the database (`engine/message-leasing.ts`), so
 * the recovery timer re-drives it should this invocation die, and a copy that finds the lease
 * held by another live invocation ends at once (`held_elsewhere`).
 * @param input the queue trigger's argument: the decoded message (parsed JSON when it parses).
 * @param attempt this try of the message (default: not the last).
 */
export async function handleFanoutMessage(
  input: unknown,
  deps: FanoutDeps,
  attempt: FanoutAttempt = { lastAttempt: false },
): Promise<FanoutResult> {
  const value = typeof input === 'string' ? parseJson(input) : input;
  const decoded = decodeNotificationMessage(value);
  if (!decoded) {
    throw new FanoutError('invalid_fanout_message', 'The queue message is none of the queue\'s kinds (an announcement\'s, an account notice\'s).');
  }
  const leased = leasedMessageOf(decoded);
  let held: Awaited<ReturnType<typeof holdMessageLease>>;
  try {
    held = await holdMessageLease(deps, leased);
  } catch (error) {
    // The database is failing: the handling fails the same way and says so; the queue's lease remains.
    deps.logger.warn({ ...messageLogFields(leased), errorCode: errorCodeOf(error) }, 'fan-out message lease not taken');
    return handleMessage(decoded, deps, attempt);
  }
  if (!held) {
    deps.logger.info(messageLogFields(leased), 'fan-out message held by another invocation');
    return { kind: 'held_elsewhere' };
  }
  let result: FanoutResult;
  try {
    result = await handleMessage(decoded, deps, attempt);
  } catch (error) {
    // The last try's failure sends the message to the poison queue, which then keeps it.
    await (attempt.lastAttempt ? held.finish() : held.release()).catch(() => undefined);
    throw error;
  }
  await held.finish();
  return result;
}

async function handleMessage(decoded: NotificationMessage, deps: FanoutDeps, attempt: FanoutAttempt): Promise<FanoutResult> {
  // An account notice (a child's account locked) shares the queue, its retries and poison queue.
  if (decoded.kind === 'notice') return { kind: 'notice', ...(await handleNoticeMessage(decoded.message, deps, attempt)) };
  try {
    return await handleValidMessage(decoded.message, deps);
  } catch (error) {
    if (attempt.lastAttempt) await recordPoisonedMessage(deps, decoded.message, errorCodeOf(error));
    throw error;
  }
}

async function handleValidMessage(message: FanoutMessage, deps: FanoutDeps): Promise<FanoutResult> {
  const { announcementId, batch, redriven } = message;
  const announcement = await findAnnouncementById(await deps.database.get(), announcementId);
  if (!announcement) throw new FanoutError('announcement_not_found', 'No announcement has the message\'s id.');
  if (announcement.status !== 'published') {
    throw new FanoutError('announcement_not_published', 'Only a published announcement is fanned out.');
  }
  if (!batch) return { kind: 'split', ...(await splitAudience(deps, announcementId, announcement.channels)) };
  const content = { id: announcement.id, title: announcement.title, body: announcement.body };
  return { kind: 'batch', ...(await deliverBatch(deps, content, announcement.channels, batch, { redriven: redriven === true })) };
}

/** The trigger hands over text that is not JSON as a string; it may still be JSON of another shape. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
