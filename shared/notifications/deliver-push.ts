import type { DeliveryContext } from './delivery-context';
import { reportPushMessage, reportRetry, reportStaleToken } from './delivery-report';
import type { DeliveryOutcome, PushMessage } from './providers/delivery';
import { recordPushTickets, type PushTicket } from './push-tickets';
import { removeStalePushToken } from './push-tokens';
import type { Recipient } from './recipients';
import { isTransient, retryDelayMs } from './retry-transient';

/** Expo accepts at most 100 messages per request. */
export const PUSH_BATCH_LIMIT = 100;

interface Device {
  userId: string;
  token: string;
}

/**
 * Push to every device of `recipients` (whose ledger rows the caller holds), in requests of up to 100
 * messages. Transient errors are retried for the failed messages only. Per user: delivered when
 * any device took it; a `DeviceNotRegistered` token is removed with a warn line; all devices stale
 * is `stale_token`.
 */
export async function deliverPush(ctx: DeliveryContext, recipients: readonly Recipient[]): Promise<void> {
  const devices = recipients.flatMap((recipient) => recipient.pushTokens.map((token) => ({ userId: recipient.userId, token })));
  if (devices.length === 0) return;
  const sentAt = ctx.now().toISOString();
  const outcomes: DeviceOutcomes = new Map();
  const chunks: Device[][] = [];
  for (let start = 0; start < devices.length; start += PUSH_BATCH_LIMIT) chunks.push(devices.slice(start, start + PUSH_BATCH_LIMIT));
  await Promise.all(chunks.map((chunk) => ctx.limit.run(() => sendChunk(ctx, chunk, outcomes))));

  if (ctx.deps.providers.push.checkReceipts) await recordTickets(ctx, outcomes, sentAt);
  for (const [device, { outcome }] of outcomes) {
    reportPushMessage(ctx.deps, outcome);
    if (outcome.result !== 'stale_token') continue;
    await removeStalePushToken(ctx.db, device.token, sentAt);
    reportStaleToken(ctx.deps, { announcementId: ctx.announcement.id, recipientUserId: device.userId }, outcome.code);
  }
  const byUser = new Map<string, { outcome: DeliveryOutcome; tries: number }[]>();
  for (const [device, sent] of outcomes) byUser.set(device.userId, [...(byUser.get(device.userId) ?? []), sent]);
  for (const [userId, sent] of byUser) await settleUser(ctx, userId, sent);
}

type DeviceOutcomes = Map<Device, { outcome: DeliveryOutcome; tries: number }>;

async function sendChunk(ctx: DeliveryContext, chunk: readonly Device[], outcomes: DeviceOutcomes): Promise<void> {
  const { title, body, id: announcementId } = ctx.announcement;
  let pending = [...chunk];
  for (let tries = 1; pending.length > 0; tries += 1) {
    const messages: PushMessage[] = pending.map((device) => ({ to: device.token, title, body, data: { announcementId } }));
    const answers = await ctx.deps.providers.push.send(messages);
    if (answers.length !== messages.length) throw new Error(`push provider answered ${answers.length} outcomes for ${messages.length} messages`);
    const firstTransient = answers.find(isTransient);
    const delayMs = firstTransient ? retryDelayMs(ctx.deps.retry, tries, firstTransient) : undefined;
    const retry: Device[] = [];
    pending.forEach((device, index) => {
      const outcome = answers[index] as DeliveryOutcome;
      if (delayMs !== undefined && isTransient(outcome)) retry.push(device);
      else outcomes.set(device, { outcome, tries });
    });
    if (retry.length === 0 || delayMs === undefined || !firstTransient) return;
    reportRetry(ctx.deps, { announcementId, channel: 'push' }, 'code' in firstTransient ? firstTransient.code : 'unknown', tries, delayMs);
    await ctx.deps.sleep(delayMs);
    pending = retry;
  }
}

/** Keeps the accepted messages' tickets, whose receipts a later check reads (`check-push-receipts.ts`). */
async function recordTickets(ctx: DeliveryContext, outcomes: ReadonlyMap<Device, { outcome: DeliveryOutcome }>, sentAt: string): Promise<void> {
  const tickets: PushTicket[] = [];
  for (const [device, { outcome }] of outcomes) {
    if (outcome.result !== 'success' || !outcome.providerMessageId) continue;
    tickets.push({ ticketId: outcome.providerMessageId, token: device.token, userId: device.userId, announcementId: ctx.announcement.id, sentAt });
  }
  if (tickets.length > 0) await ctx.db.transaction((tx) => recordPushTickets(tx, tickets));
}

/** One user's push result from its devices' outcomes. */
async function settleUser(ctx: DeliveryContext, userId: string, sent: readonly { outcome: DeliveryOutcome; tries: number }[]): Promise<void> {
  const key = ctx.key(userId, 'push');
  const facts = { announcementId: ctx.announcement.id, recipientUserId: userId, channel: 'push' as const };
  const tries = Math.max(...sent.map((s) => s.tries));
  const success = sent.find((s) => s.outcome.result === 'success')?.outcome;
  if (success?.result === 'success') {
    await ctx.finish(key, { result: 'success', providerMessageId: success.providerMessageId }, facts, tries, { event: false });
    return;
  }
  const errors = sent.map((s) => s.outcome).filter((o): o is Extract<DeliveryOutcome, { result: 'provider_error' }> => o.result === 'provider_error');
  const transient = errors.find((error) => error.transient);
  if (transient) {
    await ctx.postpone(key, transient.code, facts, tries);
    return;
  }
  const permanent = errors[0];
  const result = permanent ? 'provider_error' : 'stale_token';
  const providerCode = permanent?.code ?? (sent[0]?.outcome as { code?: string } | undefined)?.code ?? 'DeviceNotRegistered';
  await ctx.finish(key, { result, providerCode }, facts, tries, { event: false });
}
