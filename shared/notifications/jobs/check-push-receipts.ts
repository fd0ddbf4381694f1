import type { FanoutDeps } from '../engine/fanout-deps';
import { removeStalePushToken } from '../../users/push-tokens';
import { deletePushTicket, ticketsSentBefore } from '../ledger/push-tickets';

/** Expo: receipts are ready within about 15 minutes of the send... */
export const RECEIPT_READY_AFTER_MS = 15 * 60 * 1000;
/** ...and kept for a day; a ticket whose receipt never came is forgotten after that. */
export const RECEIPT_KEPT_FOR_MS = 24 * 60 * 60 * 1000;
/** Tickets read per run: a few `getReceipts` requests. */
export const RECEIPTS_PER_RUN = 1000;

export interface ReceiptCheck {
  checked: number;
  staleTokensRemoved: number;
  /** Receipts not ready yet, or a failed request: read again on the next run. */
  stillPending: number;
  /** Tickets older than a day without a receipt, forgotten. */
  expired: number;
}

/**
 * Reads the receipts of push tickets sent at least 15 minutes ago (for a timer): a
 * `DeviceNotRegistered` receipt removes the stale token with a warn line (no token in it) and
 * counts as a `notification.delivery` `stale_token`; other receipts just retire their ticket.
 * Providers without receipts (the outbox) record no tickets, so there is nothing to do.
 */
export async function checkPushReceipts(
  deps: Pick<FanoutDeps, 'database' | 'providers' | 'logger' | 'telemetry' | 'clock'>,
  limit = RECEIPTS_PER_RUN,
): Promise<ReceiptCheck> {
  const result: ReceiptCheck = { checked: 0, staleTokensRemoved: 0, stillPending: 0, expired: 0 };
  const checkReceipts = deps.providers.push.checkReceipts?.bind(deps.providers.push);
  if (!checkReceipts) return result;
  const db = await deps.database.get();
  const now = deps.clock.now().getTime();
  const tickets = await ticketsSentBefore(db, new Date(now - RECEIPT_READY_AFTER_MS).toISOString(), limit);
  if (tickets.length === 0) return result;
  const receipts = await checkReceipts(tickets.map((ticket) => ticket.ticketId));
  let failedRequestCode: string | undefined;
  for (const ticket of tickets) {
    const receipt = receipts.get(ticket.ticketId);
    result.checked += 1;
    if (receipt === undefined || (receipt.result === 'provider_error' && receipt.transient)) {
      if (receipt?.result === 'provider_error') failedRequestCode = receipt.code;
      if (Date.parse(ticket.sentAt) <= now - RECEIPT_KEPT_FOR_MS) {
        await deletePushTicket(db, ticket);
        result.expired += 1;
      } else {
        result.stillPending += 1;
      }
      continue;
    }
    if (receipt.result === 'stale_token' && (await removeStalePushToken(db, ticket.token, ticket.sentAt))) {
      result.staleTokensRemoved += 1;
      deps.logger.warn(
        { announcementId: ticket.announcementId, recipientUserId: ticket.userId, channel: 'push', providerCode: receipt.code, source: 'receipt' },
        'stale push token removed',
      );
      deps.telemetry.trackEvent('notification.delivery', { channel: 'push', result: 'stale_token' });
    } else if (receipt.result === 'provider_error') {
      deps.logger.warn(
        { announcementId: ticket.announcementId, recipientUserId: ticket.userId, providerCode: receipt.code },
        'push receipt reported an error',
      );
    }
    await deletePushTicket(db, ticket);
  }
  if (failedRequestCode) deps.logger.warn({ providerCode: failedRequestCode }, 'push receipts could not be read; retrying on the next run');
  deps.logger.info({ ...result }, 'push receipts checked');
  return result;
}
