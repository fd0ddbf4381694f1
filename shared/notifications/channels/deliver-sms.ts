import type { DeliveryContext } from '../engine/delivery-context';
import type { DeliveryKey } from '../ledger/delivery-ledger';
import { reportBudgetExceeded, reportOptedOut, reportOutcomeUnknown, reportRetry, type DeliveryFacts } from '../engine/delivery-report';
import { REPEATABILITY_EXPIRED } from '../../ports/delivery';
import type { Recipient } from '../engine/recipients';
import { smsOptOutsOf, type SmsOptOut } from './sms-opt-outs';
import { OUTCOME_UNKNOWN } from '../ledger/send-repeatability';
import { smsReportTag } from '../ledger/sms-report-tag';
import { fitSmsText, smsSegments } from './sms-segments';
import { refundSms, reserveSmsGroup, type SmsReservation } from './sms-spend-guard';
import { TurnGroups } from '../../concurrency/turn-groups';
import { SEND_MARK_MAX_ROWS } from '../ledger/send-starts';
import type { SendStart } from '../ledger/send-repeatability';

/**
 * One SMS carries the title and as much of the body as fits in three segments of its encoding
 * (GSM-7: 459 characters; UCS-2: 201): long enough for a real announcement, short enough that one
 * message never costs more than three units. The spend guard prices the segments it really takes.
 */
export const SMS_MAX_SEGMENTS = 3;

/** The text of an announcement's SMS. */
export function smsText(title: string, body: string): string {
  return fitSmsText(`${title}\n${body}`.trim(), SMS_MAX_SEGMENTS);
}

/** The SMS of each announcement a batch delivers, cut and counted once rather than per recipient. */
const smsOfAnnouncement = new WeakMap<DeliveryContext['announcement'], { text: string; segments: number }>();

function smsOf(announcement: DeliveryContext['announcement']): { text: string; segments: number } {
  let sms = smsOfAnnouncement.get(announcement);
  if (!sms) {
    const text = smsText(announcement.title, announcement.body);
    sms = { text, segments: smsSegments(text).segments };
    smsOfAnnouncement.set(announcement, sms);
  }
  return sms;
}

/**
 * What stands between an SMS and its send: an opt-out, a refused spend reservation, or else its
 * reservation and its start (undefined: the row was settled meanwhile).
 */
type SmsCheck =
  | { optOut: SmsOptOut }
  | { reservation: Extract<SmsReservation, { ok: false }> }
  | { reservation: Extract<SmsReservation, { ok: true }>; start: SendStart | undefined };

type SmsAsked = { key: DeliveryKey; userId: string; phone: string };

/** Each batch's checks and starts of the SMS starting together, in three statements per group (`TurnGroups`). */
const smsChecksOfBatch = new WeakMap<DeliveryContext, TurnGroups<SmsAsked, SmsCheck>>();

/** At most this many SMS share a check: as many as share a send-start mark. */
const SMS_CHECK_MAX = SEND_MARK_MAX_ROWS;

function smsChecksOf(ctx: DeliveryContext): TurnGroups<SmsAsked, SmsCheck> {
  let checks = smsChecksOfBatch.get(ctx);
  if (!checks) {
    const { segments } = smsOf(ctx.announcement);
    checks = new TurnGroups(async (asked) => {
      // Read right before the sends, as one SMS's check would be: a change made meanwhile still applies.
      const optOuts = await smsOptOutsOf(ctx.db, ctx.db.dialect, asked);
      const sending = asked.filter((_, index) => optOuts[index] === undefined);
      const reservations = await reserveSmsGroup(ctx.db, ctx.deps.sms, ctx.now(), sending.map(() => segments));
      // The marks follow the reservations in the same turn, the last write before the calls: the
      // sends start as soon as this group is answered, without a turn more to gather the marks.
      const reserved = sending.flatMap((each, index) => {
        const reservation = reservations[index] as SmsReservation;
        return reservation.ok ? [{ key: each.key, reservation }] : [];
      });
      let starts: (SendStart | undefined)[];
      try {
        starts = await ctx.startSends(reserved.map(({ key }) => key));
      } catch (error) {
        // Nothing goes without its mark: the spend of the group's sends is given back.
        await Promise.all(reserved.map(({ reservation }) => refundSms(ctx.db, reservation, ctx.now()).catch(() => undefined)));
        throw error;
      }
      const startOf = new Map(reserved.map(({ key }, index) => [key.userId, starts[index]]));
      let next = 0;
      return asked.map((each, index): SmsCheck => {
        const optOut = optOuts[index];
        if (optOut) return { optOut };
        const reservation = reservations[next++] as SmsReservation;
        return reservation.ok ? { reservation, start: startOf.get(each.userId) } : { reservation };
      });
    }, SMS_CHECK_MAX);
    smsChecksOfBatch.set(ctx, checks);
  }
  return checks;
}

/**
 * One recipient's SMS, its ledger row held by the caller: check the opt-outs (the user's and the
 * provider's STOP list), reserve the spend of its segments, send (the provider retries transient
 * failures with the same repeatable request); a message the provider did not accept gives its
 * reservation back. An accepted message stays `accepted` until its delivery report.
 */
export async function deliverSms(ctx: DeliveryContext, recipient: Recipient): Promise<void> {
  const phone = recipient.phone;
  if (phone === null) return;
  // Stopping: nothing new is sent; the batch gives the row back (it is still held).
  if (ctx.stopping) return;
  const key = ctx.key(recipient.userId, 'sms');
  const facts = { announcementId: ctx.announcement.id, recipientUserId: recipient.userId, channel: 'sms' as const };

  // The spend is reserved before the first send is marked: the mark is the last write before the call.
  const { text, segments } = smsOf(ctx.announcement);
  const check = await smsChecksOf(ctx).ask({ key, userId: recipient.userId, phone });
  if ('optOut' in check) {
    ctx.record(key, { result: 'opted_out', providerCode: check.optOut });
    reportOptedOut(ctx.deps, facts, check.optOut);
    return;
  }
  if (!('start' in check)) {
    const { reservation } = check;
    if (reservation.capReached) {
      ctx.deps.logger.warn(
        { month: reservation.month, ...reservation.capReached, segments },
        'sms monthly spend cap reached; messages that would cross it are not sent',
      );
    }
    ctx.record(key, { result: 'budget_exceeded' });
    reportBudgetExceeded(ctx.deps, facts);
    return;
  }
  const { reservation, start } = check;
  if (reservation.warning) {
    ctx.deps.logger.warn({ month: reservation.month, ...reservation.warning, share: 0.8 }, 'sms spend reached 80% of the monthly cap');
  }

  if (!start) {
    await refundSms(ctx.db, reservation, ctx.now());
    ctx.settledElsewhere(key);
    return;
  }
  if (start.kind === 'expired') {
    // Its spend was counted when it first went (or may have gone).
    await refundSms(ctx.db, reservation, ctx.now());
    await outcomeUnknown(ctx, key, facts);
    return;
  }
  if (ctx.stopping) {
    await refundSms(ctx.db, reservation, ctx.now());
    await ctx.forgetStart(key, start);
    return;
  }

  const observer = { tries: 0, onRetry: (code: string, failedTries: number) => reportRetry(ctx.deps, facts, code, failedTries) };
  const message = { to: phone, text, announcementId: ctx.announcement.id, tag: smsReportTag(key), repeatability: start.repeatability };
  const outcome = await ctx.deps.providers.sms.send(message, observer);
  const tries = Math.max(1, observer.tries);
  if (outcome.result !== 'accepted' && outcome.result !== 'success') await refundSms(ctx.db, reservation, ctx.now());
  if (outcome.result === 'provider_error' && outcome.code === REPEATABILITY_EXPIRED) {
    await outcomeUnknown(ctx, key, facts);
    return;
  }
  ctx.recordSendAnswerSoon(key, outcome, facts, tries);
}

/**
 * An SMS handed to ACS before (a crash came between the send and its record) too long ago for ACS
 * to recognise a resend: it may have gone out, and ACS has no lookup by request. Sending again
 * could reach the family twice, so it is recorded `accepted` (`outcome_unknown`) and its delivery
 * report, which ACS sends for every SMS it took (the send asked for one, tagged with the row),
 * settles it; without one the settle timer does.
 */
async function outcomeUnknown(ctx: DeliveryContext, key: DeliveryKey, facts: DeliveryFacts): Promise<void> {
  reportOutcomeUnknown(ctx.deps, facts, 'await_report');
  ctx.countOutcomeUnknown('sms');
  await ctx.finish(key, { result: 'accepted', providerCode: OUTCOME_UNKNOWN }, facts, 0);
}
