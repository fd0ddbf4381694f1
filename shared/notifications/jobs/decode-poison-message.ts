import { decodeNotificationMessage, type NotificationMessage } from '../../messages/notification-message';

/** A message of the fan-out queue: an announcement's or an account notice's, by its `kind`. */
export type PoisonedMessage = NotificationMessage;

export type DecodedPoisonMessage = { ok: true; message: PoisonedMessage } | { ok: false; reason: 'invalid_fanout_message' };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Reads a poison-queue message as the fan-out trigger would: base64 of the JSON (host.json
 * `messageEncoding: base64`), or the JSON itself for a message someone put there by hand, then
 * the message of its `kind` (`notification-message.ts`). Nothing of a refused text is kept: it may hold anything.
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
  const message = decodeNotificationMessage(value);
  return message ? { ok: true, message } : { ok: false, reason: 'invalid_fanout_message' };
}
