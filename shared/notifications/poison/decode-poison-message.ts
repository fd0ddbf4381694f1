import { fanoutMessageSchema, type FanoutMessage } from '../fanout-message';

export type DecodedPoisonMessage = { ok: true; message: FanoutMessage } | { ok: false; reason: 'invalid_fanout_message' };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Reads a poison-queue message as the fan-out trigger would: base64 of the JSON (host.json
 * `messageEncoding: base64`), or the JSON itself for a message someone put there by hand, then
 * the fan-out message schema. Nothing of a refused text is kept: it may hold anything.
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
  const parsed = fanoutMessageSchema.safeParse(value);
  return parsed.success ? { ok: true, message: parsed.data } : { ok: false, reason: 'invalid_fanout_message' };
}
