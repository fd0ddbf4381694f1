import type { DeliveryContext } from '../engine/delivery-context';
import type { DeliveryResult, FinishedDelivery } from '../ledger/delivery-ledger';
import { reportAttempt, reportPushMessage, reportRetry, reportStaleToken } from '../engine/delivery-report';
import type { DeliveryOutcome, PushMessage } from '../../ports/delivery';
import { PushProgress, type AnsweredDevice, type Device, type UserPushResult } from './push-progress';
import { recordPushTickets, type PushTicket } from '../ledger/push-tickets';
import { removeStalePushToken } from '../../users/push-tokens';
import type { Recipient } from '../engine/recipients';
import { isTransient, retryDelayMs } from '../providers/retry-transient';

/** Expo accepts at most 100 messages per request. */
export const PUSH_BATCH_LIMIT = 100;

/**
 * Push to every device of `recipients` (whose ledger rows the caller holds), in requests of up to 100
 * messages. Transient errors are retried for the failed messages only. Per user: delivered when
 * any device took it; a `DeviceNotRegistered` token is removed with a warn line; all devices stale
 * is `stale_token`.
 *
 * Each request's answer is written the moment it arrives, in one transaction of two statements
 * (the users it settled, and its tickets), before anything else is sent for those users: a crash
 * after that can never send those messages again. Expo takes no idempotency key, so what a crash
 * can still repeat is a request that was in flight: its users' rows are still `pending` (their lease
 * ends, or the failing invocation releases them) and the redelivered message sends them again. A
 * user whose devices span two requests is settled by the first success, or once every device answered.
 */
export async function deliverPush(ctx: DeliveryContext, recipients: readonly Pick<Recipient, 'userId' | 'pushTokens'>[]): Promise<void> {
  const devices = recipients.flatMap((recipient) => recipient.pushTokens.map((token) => ({ userId: recipient.userId, token })));
  if (devices.length === 0) return;
  const progress = new PushProgress(devices);
  const chunks: Device[][] = [];
  for (let start = 0; start < devices.length; start += PUSH_BATCH_LIMIT) chunks.push(devices.slice(start, start + PUSH_BATCH_LIMIT));
  await Promise.all(chunks.map((chunk) => ctx.limit.run(() => sendChunk(ctx, chunk, progress))));
}

async function sendChunk(ctx: DeliveryContext, chunk: readonly Device[], progress: PushProgress): Promise<void> {
  const { title, body } = ctx.announcement;
  const data = ctx.subject.pushData;
  const sentAt = ctx.now().toISOString();
  const answered: AnsweredDevice[] = [];
  let pending = [...chunk];
  for (let tries = 1; pending.length > 0; tries += 1) {
    const messages: PushMessage[] = pending.map((device) => ({ to: device.token, title, body, data }));
    const answers = await ctx.deps.providers.push.send(messages);
    if (answers.length !== messages.length) throw new Error(`push provider answered ${answers.length} outcomes for ${messages.length} messages`);
    const firstTransient = answers.find(isTransient);
    const delayMs = firstTransient ? retryDelayMs(ctx.deps.retry, tries, firstTransient) : undefined;
    const retry: Device[] = [];
    pending.forEach((device, index) => {
      const outcome = answers[index] as DeliveryOutcome;
      if (delayMs !== undefined && isTransient(outcome)) retry.push(device);
      else answered.push({ device, outcome, tries });
    });
    if (retry.length === 0 || delayMs === undefined || !firstTransient) break;
    reportRetry(ctx.deps, { ...ctx.subject.facts, channel: 'push' }, 'code' in firstTransient ? firstTransient.code : 'unknown', tries, delayMs);
    await ctx.deps.sleep(delayMs);
    pending = retry;
  }
  await recordAnswers(ctx, answered, progress.answer(answered), sentAt);
}

/** Writes one request's answers (one transaction), then logs them and removes stale tokens. */
async function recordAnswers(ctx: DeliveryContext, answered: readonly AnsweredDevice[], settled: readonly UserPushResult[], sentAt: string): Promise<void> {
  const finished = settled.filter((user): user is Extract<UserPushResult, { kind: 'final' }> => user.kind === 'final');
  const announcementId = ctx.announcementId;
  // Only an announcement's pushes keep their tickets (`PushTickets` rows name an announcement).
  const tickets = ctx.deps.providers.push.checkReceipts && announcementId !== undefined ? ticketsOf(announcementId, answered, sentAt) : [];
  await ctx.finishAtOnce('push', finished.map(ledgerRowOf), (tx) => recordPushTickets(tx, ctx.db.dialect, tickets));

  for (const { device, outcome } of answered) {
    reportPushMessage(ctx.deps, outcome);
    if (outcome.result !== 'stale_token') continue;
    await removeStalePushToken(ctx.db, device.token, sentAt);
    reportStaleToken(ctx.deps, { ...ctx.subject.facts, recipientUserId: device.userId }, outcome.code);
  }
  for (const user of settled) {
    const key = ctx.key(user.userId, 'push');
    const facts = ctx.facts(user.userId, 'push');
    if (user.kind === 'postpone') {
      await ctx.postpone(key, user.providerCode, facts, user.tries);
      continue;
    }
    ctx.settled(key, user.result);
    // Push's `notification.delivery` events count devices (`reportPushMessage`), not recipients.
    reportAttempt(ctx.deps, facts, { result: user.result, tries: user.tries, ...(user.providerCode ? { providerCode: user.providerCode } : {}) }, { event: false });
  }
}

function ledgerRowOf(user: { userId: string; result: DeliveryResult; providerCode?: string | undefined; providerMessageId?: string | undefined }): FinishedDelivery {
  return { userId: user.userId, result: user.result, providerCode: user.providerCode, providerMessageId: user.providerMessageId };
}

/** The accepted messages' tickets, whose receipts a later check reads (`check-push-receipts.ts`). */
function ticketsOf(announcementId: string, answered: readonly AnsweredDevice[], sentAt: string): PushTicket[] {
  const tickets: PushTicket[] = [];
  for (const { device, outcome } of answered) {
    if (outcome.result !== 'success' || !outcome.providerMessageId) continue;
    tickets.push({ ticketId: outcome.providerMessageId, token: device.token, userId: device.userId, announcementId, sentAt });
  }
  return tickets;
}
