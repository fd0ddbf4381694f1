import type { Database } from '../../db/database';
import type { FanoutMessage } from '../../messages/fanout-message';
import type { Channel } from '../../ports/delivery';
import { channelsFor, countRecipients, recipientsOfBatch } from '../engine/recipients';
import { ledgerRangeOf } from './ledger-range';
import { countUndelivered, deliveryStatesInRange, isUndelivered, type LedgerRange } from '../ledger/poisoned-deliveries';

/** What a poisoned fan-out message still owes, in counts only. */
export interface UndeliveredStatus {
  range: LedgerRange;
  /** Recipients the message covers now: a batch's range, or the first message's whole audience. */
  recipients: number;
  /**
   * Deliveries a re-drive would send. A batch: its recipients × channels with no ledger row yet,
   * a `pending` row or a poisoned one. The first message: its `pending` and poisoned rows (it
   * splits again, and each batch then sends whoever has no final row).
   */
  notYetDelivered: number;
  /** Rows of the range never finished. */
  pending: number;
  /** Rows of the range failed by poisoning. */
  poisoned: number;
}

/**
 * Counts what a poisoned message still owes, as its re-drive would see it. Contact data is read
 * (to know who is reachable on which channel) but only counted.
 * @param channels the announcement's channels.
 */
export async function undeliveredOf(db: Database, message: FanoutMessage, channels: readonly Channel[]): Promise<UndeliveredStatus> {
  const range = await ledgerRangeOf(db, message, channels);
  if (!message.batch) {
    const counts = await countUndelivered(db, range);
    return { range, recipients: await countRecipients(db, channels), notYetDelivered: counts.pending + counts.poisoned, ...counts };
  }
  const recipients = await recipientsOfBatch(db, channels, message.batch);
  const rows = await deliveryStatesInRange(db, range);
  const byKey = new Map(rows.map((row) => [`${row.userId}/${row.channel}`, row]));
  const planned = recipients.flatMap((recipient) => channelsFor(recipient, channels).map((channel) => `${recipient.userId}/${channel}`));
  return {
    range,
    recipients: recipients.length,
    notYetDelivered: planned.filter((key) => {
      const row = byKey.get(key);
      return row === undefined || isUndelivered(row);
    }).length,
    pending: rows.filter((row) => row.result === 'pending').length,
    poisoned: rows.filter((row) => isUndelivered(row) && row.result === 'failed').length,
  };
}
