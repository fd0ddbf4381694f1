import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import { FANOUT_MESSAGE_KIND, fanoutMessageSchema, type FanoutMessage } from './fanout-message';
import { NOTICE_MESSAGE_KIND, noticeMessageSchema, type NoticeMessage } from './notice-message';

/**
 * A message of the `notification-fanout` queue, by its `kind`: an announcement's (its first
 * message, which splits the audience, or a batch) or an account notice's. One queue, one function,
 * one set of retries and one poison queue for both.
 */
export type NotificationMessage =
  | { kind: typeof FANOUT_MESSAGE_KIND; message: FanoutMessage }
  | { kind: typeof NOTICE_MESSAGE_KIND; message: NoticeMessage };

/**
 * The queue's messages, told apart by `kind` alone. Messages enqueued before messages carried a
 * `kind` are still read: each of the two strict shapes of then matches only its own messages, and
 * is given its kind (kept while such messages may wait in a queue or a poison queue).
 */
const notificationMessageSchema = lazySchema(() => {
  const announcement = fanoutMessageSchema.schema();
  const notice = noticeMessageSchema.schema();
  return z.union([
    z.discriminatedUnion('kind', [
      z.extend(announcement, { kind: z.literal(FANOUT_MESSAGE_KIND) }),
      z.extend(notice, { kind: z.literal(NOTICE_MESSAGE_KIND) }),
    ]),
    z.pipe(announcement, z.transform((message) => ({ ...message, kind: FANOUT_MESSAGE_KIND as typeof FANOUT_MESSAGE_KIND }))),
    z.pipe(notice, z.transform((message) => ({ ...message, kind: NOTICE_MESSAGE_KIND as typeof NOTICE_MESSAGE_KIND }))),
  ]);
});

/** A queue message's JSON as the message it is, or undefined when it is none of the queue's kinds. */
export function decodeNotificationMessage(value: unknown): NotificationMessage | undefined {
  const parsed = notificationMessageSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { kind, ...message } = parsed.data;
  return kind === FANOUT_MESSAGE_KIND
    ? { kind, message: message as FanoutMessage }
    : { kind, message: message as NoticeMessage };
}
