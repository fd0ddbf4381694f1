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

interface WaitingStart {
  key: DeliveryKey;
  resolve(start: SendStart | undefined): void;
  reject(error: unknown): void;
}

/**
 * The first sends of one batch's SMS and e-mail rows: `start(key)` right before a row's provider
 * call records its first send durably (with the other sends starting at that moment) and gives the
 * repeatability pair to send and whether the call is a first send, a resend inside the provider's
 * window, or one too late to resend (`send-repeatability.ts`).
 */
export class SendStarts {
  private waiting: WaitingStart[] = [];
  private marking = false;

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
   * @throws the mark's database failure: the send must not go without it.
   */
  start(key: DeliveryKey): Promise<SendStart | undefined> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ key, resolve, reject });
      if (!this.marking) {
        this.marking = true;
        void this.markWaiting();
      }
    });
  }

  /**
   * The send of a row marked by `start` did not go out after all (the instance began stopping before
   * the call): its first send is forgotten, so a later send is a first one, whenever it comes.
   */
  async notSent(key: DeliveryKey): Promise<void> {
    await clearSendStart(this.db, key, this.ledger);
  }

  private async markWaiting(): Promise<void> {
    // Starts of the same turn (a batch filling its slots) join the first statement.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0, SEND_MARK_MAX_ROWS);
        const now = this.clock.now();
        let firstSent: Map<string, string>;
        try {
          firstSent = await markSendStarts(this.db, this.db.dialect, this.announcementId, group.map((start) => start.key), now.toISOString(), this.ledger);
        } catch (error) {
          // A failed mark is not kept: each of these sends fails, and the row's next start tries again.
          for (const start of group) start.reject(error);
          continue;
        }
        const sendingAt = this.clock.now();
        for (const { key, resolve } of group) {
          const at = firstSent.get(idOf(key));
          resolve(at === undefined ? undefined : sendStartOf(key, new Date(at), at === now.toISOString(), sendingAt));
        }
        // The marked rows' requests are written first (their continuations, down to the socket, run
        // before the next turn): the next group's statement, which on SQLite runs on this thread,
        // never sits between a row's mark and its request.
        if (this.waiting.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.marking = false;
    }
  }
}
