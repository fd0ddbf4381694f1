import { finishDelivery } from './delivery-ledger';
import type { DeliveryContext } from './delivery-context';
import { reportBudgetExceeded, reportOptedOut, reportRetry } from './delivery-report';
import type { Recipient } from './recipients';
import { sendWithRetries } from './retry-transient';
import { recordProviderSmsOptOut, smsOptOutOf } from './sms-opt-outs';
import { refundSms, reserveSms } from './sms-spend-guard';

/**
 * One SMS carries the title and the start of the body, at most one 160-character segment: the unit
 * the spend guard's `SMS_UNIT_COST_USD` prices.
 */
export const SMS_MAX_LENGTH = 160;

/**
 * The provider's error code for a number that replied STOP (the SMS adapters answer it as a
 * permanent `provider_error` with this code): recorded as the provider's opt-out.
 */
export const SMS_OPTED_OUT_CODE = 'opted_out';

/** The text of an announcement's SMS. */
export function smsText(title: string, body: string): string {
  const text = `${title}\n${body}`.trim();
  return text.length <= SMS_MAX_LENGTH ? text : `${text.slice(0, SMS_MAX_LENGTH - 1)}…`;
}

/**
 * One recipient's SMS, its ledger row held by the caller: check the opt-outs (the user's and the
 * provider's STOP list), reserve the spend, send with retries; a message the provider did not
 * accept gives its reservation back.
 */
export async function deliverSms(ctx: DeliveryContext, recipient: Recipient): Promise<void> {
  const phone = recipient.phone;
  if (phone === null) return;
  const key = ctx.key(recipient.userId, 'sms');
  const facts = { announcementId: ctx.announcement.id, recipientUserId: recipient.userId, channel: 'sms' as const };

  const optOut = await smsOptOutOf(ctx.db, recipient.userId, phone);
  if (optOut) {
    await finishDelivery(ctx.db, key, { result: 'opted_out', providerCode: optOut }, ctx.now().toISOString());
    ctx.settled(key, 'opted_out');
    reportOptedOut(ctx.deps, facts, optOut);
    return;
  }

  const reservation = await reserveSms(ctx.db, ctx.deps.sms, ctx.now());
  if (reservation.ok && reservation.warning) {
    ctx.deps.logger.warn({ month: reservation.month, ...reservation.warning, share: 0.8 }, 'sms spend reached 80% of the monthly cap');
  }
  if (!reservation.ok) {
    if (reservation.capReached) {
      ctx.deps.logger.warn({ month: reservation.month, ...reservation.capReached }, 'sms monthly spend cap reached; no more sms this month');
    }
    await finishDelivery(ctx.db, key, { result: 'budget_exceeded' }, ctx.now().toISOString());
    ctx.settled(key, 'budget_exceeded');
    reportBudgetExceeded(ctx.deps, facts);
    return;
  }

  const message = { to: phone, text: smsText(ctx.announcement.title, ctx.announcement.body), announcementId: ctx.announcement.id };
  const { outcome, tries } = await sendWithRetries(() => ctx.deps.providers.sms.send(message), {
    policy: ctx.deps.retry,
    sleep: ctx.deps.sleep,
    onRetry: (failed, failedTries, delayMs) => reportRetry(ctx.deps, facts, failed, failedTries, delayMs),
  });
  if (outcome.result !== 'success') await refundSms(ctx.db, ctx.deps.sms, reservation.month, ctx.now());
  const now = ctx.now().toISOString();
  switch (outcome.result) {
    case 'success':
      await ctx.finish(key, { result: 'success', providerMessageId: outcome.providerMessageId }, facts, tries);
      return;
    case 'provider_error':
      if (outcome.transient) {
        await ctx.postpone(key, outcome.code, facts, tries);
        return;
      }
      if (outcome.code === SMS_OPTED_OUT_CODE) {
        await recordProviderSmsOptOut(ctx.db, phone, now);
        await finishDelivery(ctx.db, key, { result: 'opted_out', providerCode: 'provider_stop' }, now);
        ctx.settled(key, 'opted_out');
        reportOptedOut(ctx.deps, facts, 'provider_stop');
        return;
      }
      await ctx.finish(key, { result: 'provider_error', providerCode: outcome.code }, facts, tries);
      return;
    default:
      // Hard bounces and stale tokens are not SMS answers: an adapter bug, recorded as a provider error.
      await ctx.finish(key, { result: 'provider_error', providerCode: outcome.code }, facts, tries);
  }
}
