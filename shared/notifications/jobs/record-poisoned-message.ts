import { findAnnouncementById } from '../../announcements/announcement-store';
import { errorFields } from '../../logging/logger';
import type { FanoutDeps } from '../engine/fanout-deps';
import type { FanoutMessage } from '../../messages/fanout-message';
import { ledgerRangeOf } from './ledger-range';
import { markPoisonedDeliveries } from '../ledger/poisoned-deliveries';

/**
 * The last try of a valid fan-out message failed, and the host is moving it to the poison queue:
 * a batch message's unfinished ledger rows become `failed` / `poisoned`, so no row is left
 * `pending` with nothing left to send it, and an operator sees which rows a re-drive will send
 * (`npm run redrive-poison`). Then one warn line says what was marked. The first message (the
 * split) has no rows of its own: marking the announcement's rows would fail rows whose batch
 * messages are still being retried, so its line only names it.
 * Never throws: when the marking fails too (the database being what failed, say), a warn line
 * says so and the rows stay `pending`, which a re-drive counts and sends as well.
 * @param failureCode the `errorCode` of the failure that poisons the message.
 */
export async function recordPoisonedMessage(
  deps: Pick<FanoutDeps, 'database' | 'logger' | 'clock'>,
  message: FanoutMessage,
  failureCode: string,
): Promise<void> {
  const { announcementId, batch } = message;
  const where = batch
    ? { announcementId, kind: 'batch', afterUserId: batch.afterUserId, throughUserId: batch.throughUserId ?? null }
    : { announcementId, kind: 'split' };
  if (!batch) {
    deps.logger.warn({ ...where, failedDeliveries: 0, errorCode: failureCode }, 'fan-out message poisoned');
    return;
  }
  try {
    const db = await deps.database.get();
    const announcement = await findAnnouncementById(db, announcementId);
    const failedDeliveries = announcement
      ? await markPoisonedDeliveries(db, await ledgerRangeOf(db, message, announcement.channels), deps.clock.now().toISOString())
      : 0;
    deps.logger.warn({ ...where, failedDeliveries, errorCode: failureCode }, 'fan-out message poisoned');
  } catch (error) {
    deps.logger.warn(
      { ...where, errorCode: failureCode, ...errorFields(error) },
      'fan-out message poisoned; its unfinished deliveries could not be marked failed',
    );
  }
}
