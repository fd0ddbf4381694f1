import type { FanoutDeps } from '../engine/fanout-deps';
import type { FanoutMessage } from '../../messages/fanout-message';
import type { Channel } from '../../ports/delivery';
import { FIRST_USER_ID, recipientIdsAfter } from '../engine/recipients';

export interface SplitResult {
  recipients: number;
  batches: number;
}

/**
 * The first message of a fan-out: walks the audience in pages of `batchSize` user ids (only ids,
 * one page at a time), logs `fan-out initiated` and sends `notification.fanout`, then enqueues one
 * batch message per page so that scaled-out instances share the work. Redelivered, it enqueues the
 * batches again; the ledger makes the second copies no-ops.
 */
export async function splitAudience(deps: FanoutDeps, announcementId: string, channels: readonly Channel[]): Promise<SplitResult> {
  const db = await deps.database.get();
  const batches: NonNullable<FanoutMessage['batch']>[] = [];
  let recipients = 0;
  for (let afterUserId = FIRST_USER_ID; ; ) {
    const ids = await recipientIdsAfter(db, channels, afterUserId, deps.batchSize);
    if (ids.length === 0) break;
    const throughUserId = ids[ids.length - 1] as string;
    batches.push({ afterUserId, throughUserId, size: ids.length });
    recipients += ids.length;
    afterUserId = throughUserId;
    if (ids.length < deps.batchSize) break;
  }
  deps.logger.info({ announcementId, recipients, channels, batches: batches.length }, 'fan-out initiated');
  deps.telemetry.trackEvent('notification.fanout', { announcementId, recipients, channels: channels.join(',') });
  for (const batch of batches) await deps.queue.enqueue({ announcementId, batch });
  return { recipients, batches: batches.length };
}
