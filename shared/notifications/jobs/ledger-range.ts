import type { Database } from '../../db/database';
import type { FanoutMessage } from '../../messages/fanout-message';
import type { Channel } from '../../ports/delivery';
import { FIRST_USER_ID, recipientIdsAfter } from '../engine/recipients';
import type { LedgerRange } from '../ledger/poisoned-deliveries';

/**
 * The ledger rows a fan-out message is about:
 * - a batch message: its user-id range;
 * - a batch message made before ranges existed (no `throughUserId`): the `size` recipients after
 *   `afterUserId` as the audience stands now, the same users its own delivery reads;
 * - the first message (no `batch`): the whole announcement, since re-sending it splits everything again.
 * @param channels the announcement's channels (only the older batch messages need them).
 */
export async function ledgerRangeOf(db: Database, message: FanoutMessage, channels: readonly Channel[]): Promise<LedgerRange> {
  const { announcementId, batch } = message;
  if (!batch) return { announcementId, afterUserId: FIRST_USER_ID };
  if (batch.throughUserId !== undefined) return { announcementId, afterUserId: batch.afterUserId, throughUserId: batch.throughUserId };
  const ids = await recipientIdsAfter(db, channels, batch.afterUserId, batch.size);
  // No recipient left in it: an empty range (nothing after afterUserId and up to it).
  return { announcementId, afterUserId: batch.afterUserId, throughUserId: ids[ids.length - 1] ?? batch.afterUserId };
}
