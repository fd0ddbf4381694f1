import type { Database } from '../../db/database';
import type { Clock } from '../../ports/clock';
import type { DeliveryKey } from './delivery-ledger';
import { markSendStarts, restartSendStart, sendStartOf, type SendStart } from './send-repeatability';

/**
 * How many rows one mark records. The mark must be durable before a row's first send (a crash
 * after it makes the row's next send a resend of the same request); marking rows a few at a time,
 * in the order the batch sends them, costs one statement per this many sends instead of one
 * commit per send (a batch's slots take this many sends at once when it starts). The price: after a
 * crash, rows marked but not yet sent count as sent; past the provider's window their outcome is
 * unknown rather than resent.
 */
export const SEND_MARK_ROWS = 16;

/**
 * A row this batch marked but had not sent for longer than this (a slow provider holding the
 * batch's slots) is marked again, alone, when its send starts: its first-sent time must be the
 * moment it really went out, or ACS could already take it for an expired repeat (412).
 */
export const MARK_FRESH_MS = 10_000;

const idOf = (key: Pick<DeliveryKey, 'userId' | 'channel'>): string => `${key.userId}/${key.channel}`;

/**
 * The first sends of one batch's SMS and e-mail rows: `start(key)` right before a row's provider
 * call gives the repeatability pair to send and whether the call is a first send, a resend inside
 * the provider's window, or one too late to resend (`send-repeatability.ts`).
 */
export class SendStarts {
  private readonly order: DeliveryKey[];
  private readonly marks = new Map<string, Promise<{ firstSent: Map<string, string>; now: Date }>>();
  private cursor = 0;

  /**
   * @param keys the rows this batch will send, in the order it starts them.
   */
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly announcementId: string,
    keys: readonly DeliveryKey[],
  ) {
    this.order = [...keys];
  }

  /**
   * Marks `key` (with the next unmarked rows of the batch, once) and says what its send is.
   * @returns undefined when the row is no longer `pending` (settled meanwhile): send nothing.
   * @throws the mark's database failure: the send must not go without it.
   */
  async start(key: DeliveryKey): Promise<SendStart | undefined> {
    const mark = this.marks.get(idOf(key)) ?? this.markFrom(key);
    const { firstSent, now } = await mark;
    const at = firstSent.get(idOf(key));
    if (at === undefined) return undefined;
    const markedNow = at === now.toISOString();
    const sendingAt = this.clock.now();
    if (markedNow && sendingAt.getTime() - now.getTime() > MARK_FRESH_MS) {
      // Marked by this batch and not sent since: no one has sent it, so its first send is now.
      await restartSendStart(this.db, key, sendingAt.toISOString());
      return sendStartOf(key, sendingAt, true, sendingAt);
    }
    return sendStartOf(key, new Date(at), markedNow, sendingAt);
  }

  private markFrom(key: DeliveryKey): Promise<{ firstSent: Map<string, string>; now: Date }> {
    const chunk = [key];
    while (chunk.length < SEND_MARK_ROWS && this.cursor < this.order.length) {
      const next = this.order[this.cursor] as DeliveryKey;
      this.cursor += 1;
      if (!this.marks.has(idOf(next)) && idOf(next) !== idOf(key)) chunk.push(next);
    }
    const now = this.clock.now();
    const mark = markSendStarts(this.db, this.db.dialect, this.announcementId, chunk, now.toISOString()).then((firstSent) => ({ firstSent, now }));
    for (const marked of chunk) this.marks.set(idOf(marked), mark);
    // A failed mark is not kept: the row's next start tries again.
    mark.catch(() => {
      for (const marked of chunk) if (this.marks.get(idOf(marked)) === mark) this.marks.delete(idOf(marked));
    });
    return mark;
  }
}
