import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';

/** The kinds of account notice; each has its text in `notice-text.ts`. */
export const NOTICE_KINDS = ['child_locked'] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** The `kind` an account notice's messages carry on the queue (`notification-message.ts`). */
export const NOTICE_MESSAGE_KIND = 'notice';

/**
 * An account notice's message on the `notification-fanout` queue: `{ "kind": "notice", "notice": { "id", "kind" } }`,
 * ids only. The text (the child's name, what to do) is composed from the database when it is sent,
 * so no name or address ever sits in a queue, a poison queue or a log.
 */
export const noticeMessageSchema = lazySchema(() =>
  z.strictObject({
    notice: z.strictObject({
      id: z.uuid(),
      kind: z.enum(NOTICE_KINDS),
    }),
  }),
);

export type NoticeMessage = z.infer<ReturnType<typeof noticeMessageSchema.schema>>;

/** The queue text of a notice message: base64 of its JSON with its `kind`, as every message of the fan-out queue. */
export function encodeNoticeMessage(message: NoticeMessage): string {
  return Buffer.from(JSON.stringify({ kind: NOTICE_MESSAGE_KIND, ...noticeMessageSchema.parse(message) }), 'utf8').toString('base64');
}
