import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';

/** The storage queue the fan-out function listens on (contract section 10). */
export const FANOUT_QUEUE_NAME = 'notification-fanout';

/** The `kind` an announcement's messages carry on the queue (`notification-message.ts`). */
export const FANOUT_MESSAGE_KIND = 'announcement';

/**
 * A fan-out message: the announcement to deliver, and for a batch message the slice of the
 * audience it covers (recipients after `afterUserId`, at most `size` of them). A message without
 * `batch` is the first one, sent on publish: it splits the audience into batch messages.
 */
export const fanoutMessageSchema = lazySchema(() =>
  z.strictObject({
    announcementId: z.uuid(),
    batch: z.optional(
      z.strictObject({
        /** Recipients with a user id greater than this one ('' for the first batch). */
        afterUserId: z.string().check(z.maxLength(64)),
        /**
         * ...and at most this one: the last id of the page when the audience was split. The range,
         * not the count, is what a batch covers, so a user who joins the audience inside it after the
         * split pushes nobody out of it. Absent in messages made before ranges existed.
         */
        throughUserId: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
        size: z.int().check(z.minimum(1), z.maximum(5000)),
      }),
    ),
    /**
     * Set on a batch message the recovery timer made for rows whose holder died
     * (`redrive-stalled-batches.ts`): rows it finds under another live lease are that holder's, and
     * the message ends without asking the queue to try again.
     */
    redriven: z.optional(z.literal(true)),
  }),
);

export type FanoutMessage = z.infer<ReturnType<typeof fanoutMessageSchema.schema>>;

/**
 * The queue text of a message: base64 of its JSON with its `kind`, the encoding the queue trigger
 * expects (host.json `extensions.queues.messageEncoding: base64`).
 */
export function encodeFanoutMessage(message: FanoutMessage): string {
  const text = JSON.stringify({ kind: FANOUT_MESSAGE_KIND, ...fanoutMessageSchema.parse(message) });
  return Buffer.from(text, 'utf8').toString('base64');
}
