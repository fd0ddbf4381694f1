import { fanoutMessageSchema, type FanoutMessage } from '../../messages/fanout-message';
import { looksLikeNoticeMessage, noticeMessageSchema, type NoticeMessage } from '../../messages/notice-message';

/** A message of the fan-out queue: an announcement's (`{ announcementId, batch? }`) or an account notice's (`{ notice }`). */
export type PoisonedMessage = FanoutMessage | NoticeMessage;

export type DecodedPoisonMessage = { ok: true; message: PoisonedMessage } | { ok: false; reason: 'invalid_fanout_message' };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Reads a poison-queue message as the fan-out trigger would: base64 of the JSON (host.json
 * `messageEncoding: base64`), or the JSON itself for a message someone put there by hand, then
 * the schema of its kind: an account notice's when it has a `notice` member, else the fan-out
 * message's. Nothing of a refused text is kept: it may hold anything.
 */
export function decodePoisonMessage(text: string): DecodedPoisonMessage {
  const trimmed = text.trim();
  const json = BASE64.test(trimmed) && trimmed.length % 4 === 0 ? Buffer.from(trimmed, 'base64').toString('utf8') : trimmed;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { ok: false, reason: 'invalid_fanout_message' };
  }
  const parsed = looksLikeNoticeMessage(value) ? noticeMessageSchema.safeParse(value) : fanoutMessageSchema.safeParse(value);
  return parsed.success ? { ok: true, message: parsed.data } : { ok: false, reason: 'invalid_fanout_message' };
}

/** True for an account notice's message. */
export function isNoticeMessage(message: PoisonedMessage): message is NoticeMessage {
  return 'notice' in message;
}
