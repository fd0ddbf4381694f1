import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';

/** The kinds of account notice; each has its text in `notice-text.ts`. */
export const NOTICE_KINDS = ['child_locked'] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/**
 * An account notice's message on the `notification-fanout` queue: `{ "notice": { "id", "kind" } }`,
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

/** True for a queue message that is meant as a notice (has a `notice` member), valid or not. */
export function looksLikeNoticeMessage(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'notice' in value;
}

/** The queue text of a notice message: base64 of its JSON, as every message of the fan-out queue. */
export function encodeNoticeMessage(message: NoticeMessage): string {
  return Buffer.from(JSON.stringify(noticeMessageSchema.parse(message)), 'utf8').toString('base64');
}
