import { ConcurrencyLimit } from '../../concurrency/concurrency-limit';
import { deliverEmail } from '../channels/deliver-email';
import { deliverPush } from '../channels/deliver-push';
import { deliverSms } from '../channels/deliver-sms';
import { DeliveryContext, type AnnouncementContent, type BatchTally } from '../engine/delivery-context';
import type { FanoutDeps } from '../engine/fanout-deps';
import { FanoutError } from '../engine/fanout-error';
import { deliverClaimed } from '../engine/deliver-claimed';
import type { DeliveryKey } from '../ledger/delivery-ledger';
import { errorFields } from '../../logging/logger';
import type { Channel } from '../../ports/delivery';
import { channelsFor, recipientsOfBatch, type Recipient } from '../engine/recipients';

export interface BatchResult {
  recipients: number;
  tally: BatchTally;
}

/**
 * Delivers one batch message: reads its recipients from the database (the users of its id range), claims their ledger rows in one transaction, then sends push in requests of 100
 * and each SMS and e-mail, at most
 * `deps.concurrency` provider requests at once. When anything is still owed afterwards (transient
 * errors past the retries, rows another invocation holds), it throws `delivery_incomplete` so the
 * queue redelivers the message; the ledger skips what was done.
 */
export async function deliverBatch(
  deps: FanoutDeps,
  announcement: AnnouncementContent,
  channels: readonly Channel[],
  batch: BatchRange,
  options: BatchOptions = {},
): Promise<BatchResult> {
  // A stopping instance starts no batch: the message goes back at once, for another instance.
  if (deps.shutdown.stopping.aborted) throw interruptedByShutdown();
  // Tracked: the shutdown waits for the batch to give its rows back before the database closes.
  return deps.shutdown.track(() => deliverTrackedBatch(deps, announcement, channels, batch, options));
}

export interface BatchOptions {
  /**
   * The message was made by the recovery timer (`redrive-stalled-batches.ts`): rows under another
   * live lease are that holder's (or another re-driven message's), so they do not make the message
   * fail and come back; only rows this invocation gave back do.
   */
  redriven?: boolean;
}

type BatchRange = { afterUserId: string; throughUserId?: string | undefined; size: number };

/**
 * Once the instance is stopping, nothing new is sent (`deliverSms`, `deliverEmail`; the providers
 * refuse new requests) and calls in flight end at the shutdown deadline; every row not finished is
 * then given back, and the batch fails so its message is visible again for another instance.
 */
async function deliverTrackedBatch(
  deps: FanoutDeps,
  announcement: AnnouncementContent,
  channels: readonly Channel[],
  batch: BatchRange,
  options: BatchOptions,
): Promise<BatchResult> {
  const db = await deps.database.get();
  const recipients = await recipientsOfBatch(db, channels, batch);
  const ctx = new DeliveryContext(deps, db, new ConcurrencyLimit(deps.concurrency), announcement);
  const byUser = new Map(recipients.map((recipient) => [recipient.userId, recipient]));
  const planned = recipients.flatMap((recipient) => channelsFor(recipient, channels).map((channel) => ctx.key(recipient.userId, channel)));
  const send = (held: DeliveryKey[]): Promise<void>[] => {
    const recipientsOn = (channel: Channel) =>
      held.filter((key) => key.channel === channel).map((key) => byUser.get(key.userId) as Recipient);
    const tasks: Promise<void>[] = [];
    const push = recipientsOn('push');
    if (push.length > 0) tasks.push(deliverPush(ctx, push));
    for (const recipient of recipientsOn('sms')) tasks.push(ctx.limit.run(() => deliverSms(ctx, recipient)));
    for (const recipient of recipientsOn('email')) tasks.push(ctx.limit.run(() => deliverEmail(ctx, recipient)));
    return tasks;
  };
  await deliverClaimed(ctx, planned, send, (error) =>
    deps.logger.warn({ announcementId: announcement.id, errorCode: 'lease_renewal_failed', ...errorFields(error) }, 'delivery leases not renewed'),
  );
  const summary = {
    announcementId: announcement.id,
    afterUserId: batch.afterUserId,
    recipients: recipients.length,
    // Flat names: a field called `email` would be redacted as an address.
    pushResults: ctx.tally.push,
    smsResults: ctx.tally.sms,
    emailResults: ctx.tally.email,
    ...(options.redriven ? { redriven: true } : {}),
  };
  if (ctx.stopping && ctx.incomplete) {
    deps.logger.warn(summary, 'fan-out batch interrupted by shutdown');
    throw interruptedByShutdown();
  }
  deps.logger.info(summary, 'fan-out batch delivered');
  reportOutcomesUnknown(deps, announcement.id, ctx.tally);
  reportResumedSends(deps, announcement.id, ctx.resumedSends);
  if (options.redriven ? ctx.owed : ctx.incomplete) {
    throw new FanoutError('delivery_incomplete', 'Some deliveries of the batch are still owed; the queue will redeliver it.');
  }
  return { recipients: recipients.length, tally: ctx.tally };
}

/**
 * SMS left `accepted` with an unknown outcome (first sent before a crash, too long ago for ACS to
 * recognise a resend) are counted in the fan-out's telemetry and raise the SMS delivery warning the
 * same day (`sms-failure-rate-elevated` fires on any), rather than only when the settle timer gives
 * up on their report two days later.
 */
function reportOutcomesUnknown(deps: FanoutDeps, announcementId: string, tally: BatchTally): void {
  for (const channel of ['sms', 'email'] as const) {
    const count = tally[channel].outcome_unknown ?? 0;
    if (count === 0) continue;
    deps.logger.warn({ announcementId, channel, outcomeUnknown: count, errorCode: 'outcome_unknown' }, 'fan-out batch left deliveries with an unknown outcome');
    deps.telemetry.trackEvent('notification.outcome_unknown', { announcementId, channel, count });
  }
}

/**
 * Rows marked first-sent whose answer was never recorded (the holder died between the mark and the
 * answer), which recovery cannot tell from a send: taken up inside ACS's window, they went again
 * under their first repeatable request, which ACS executes once whichever side of the crash the
 * first one fell. Counted (`notification.send_resumed`) beside those taken up too late
 * (`notification.outcome_unknown`), so the crash window's cost is known.
 */
function reportResumedSends(deps: FanoutDeps, announcementId: string, resumed: DeliveryContext['resumedSends']): void {
  for (const channel of ['sms', 'email'] as const) {
    const count = resumed[channel];
    if (count === 0) continue;
    deps.logger.warn({ announcementId, channel, resumedSends: count }, 'fan-out batch resent interrupted sends under their first request');
    deps.telemetry.trackEvent('notification.send_resumed', { announcementId, channel, count });
  }
}

function interruptedByShutdown(): FanoutError {
  return new FanoutError('delivery_incomplete', 'The instance is shutting down; the deliveries of the batch not made were given back for another instance.');
}
