import { TurnGroups } from '../../concurrency/turn-groups';
import type { Database } from '../../db/database';
import type { Clock } from '../../ports/clock';
import type { DeliveryKey } from './delivery-ledger';
import { ANNOUNCEMENT_LEDGER, type LeasedLedger } from './leased-rows';
import { clearSendStart, markSendStarts, sendStartOf, type SendStart } from './send-repeatability';

/**
 * At most this many rows per mark statement. Marks are group-committed: the sends that start while
 * a mark is being written wait for it and go together in the next statement, so a batch whose
 * slots all start at once pays one statement for them, and no row is ever marked before its own
 * send starts (rows marked ahead of their send, in chunks of 16, were lost after a crash
 * that outlasted ACS's window: marked, so taken for sent, though they never reached ACS).
 */
export const SEND_MARK_MAX_ROWS = 100;

const idOf = (key: Pick<DeliveryKey, 'userId' | 'channel'>): string => `${key.userId}/${key.channel}`;

/**
 * The first sends of one batch's SMS and e-mail rows: `start(key)` right before a row's provider
 * call records its first send durably (with the other sends starting at that moment) and gives the
 * repeatability pair to send and whether the call is a first send, a resend inside the provider's
 * window, or one too late to resend (`send-repeatability.ts`).
 */
export class SendStarts {
  /**
   * The starts of one turn (a batch filling its slots) join one statement. A group's answers are
   * handed out before the next group runs a turn later, so the marked rows' requests are written
   * first (their continuations, down to the socket, run in between): the next statement, which on
   * SQLite runs on this thread, never sits between a row's mark and its request.
   */
  private readonly marks = new TurnGroups<DeliveryKey, SendStart | undefined>((keys) => this.mark(keys), SEND_MARK_MAX_ROWS);

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly announcementId: string,
    /** The table of the rows (an account notice's: `announcementId` is then the notice's id). */
    private readonly ledger: LeasedLedger = ANNOUNCEMENT_LEDGER,
  ) {}

  /**
   * Marks `key` (with whatever other sends start meanwhile) and says what its send is.
   * @returns undefined when the row is no longer `pending` (settled meanwhile): send nothing.
   * @throws the mark's database failure: the send must not go without it (a failed mark is not
   *   kept: each send of its group fails, and the row's next start tries again).
   */
  start(key: DeliveryKey): Promise<SendStart | undefined> {
    return this.marks.ask(key);
  }

  /**
   * Marks `keys` now, in one statement, for a caller that already gathers the sends starting
   * together (the SMS checks of one turn): they start without waiting a turn more for a group of
   * their own. The same answers and failure as `start`, one per key.
   */
  startAll(keys: DeliveryKey[]): Promise<(SendStart | undefined)[]> {
    return keys.length === 0 ? Promise.resolve([]) : this.mark(keys);
  }

  /**
   * The send of a row marked by `start` did not go out after all (the instance began stopping before
   * the call): its first send is forgotten, so a later send is a first one, whenever it comes.
   */
  async notSent(key: DeliveryKey): Promise<void> {
    await clearSendStart(this.db, key, this.ledger);
  }

  /** One statement marks the group's rows; each gets its start, or undefined when it was settled meanwhile. */
  private async mark(keys: DeliveryKey[]): Promise<(SendStart | undefined)[]> {
    const now = this.clock.now();
    const firstSent = await markSendStarts(this.db, this.db.dialect, this.announcementId, keys, now.toISOString(), this.ledger);
    const sendingAt = this.clock.now();
    return keys.map((key) => {
      const at = firstSent.get(idOf(key));
      return at === undefined ? undefined : sendStartOf(key, new Date(at), at === now.toISOString(), sendingAt);
    });
  }
}
