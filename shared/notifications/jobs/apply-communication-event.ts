import type { Database, SqlExecutor } from '../../db/database';
import { recordProviderEvent } from '../ledger/provider-events';
import { keyOfSmsReportTag } from '../ledger/sms-report-tag';
import { subjectOf, type LedgerRowKey } from '../ledger/leased-rows';
import { settleReportedDelivery, type ReportedResult } from '../ledger/reported-deliveries';
import { markEmailHardBounce } from '../channels/email-hard-bounces';
import type { FanoutDeps } from '../engine/fanout-deps';
import { safeLabel } from '../providers/provider-http';
import { clearProviderSmsOptOut, recordProviderSmsOptOut } from '../channels/sms-opt-outs';
import { canonicalPhone } from '../../validation/contact-address';
import { parseCommunicationEvent, type CommunicationEvent } from './communication-event';
import { smsKeywordOf } from './sms-keywords';

/** What one event did, for its log line and tests. */
export type EventOutcome =
  | { outcome: 'applied'; type: string; result: ReportedResult | 'sms_stop' | 'sms_start'; key?: LedgerRowKey }
  | { outcome: 'no_change'; type: string; why: 'unmatched' | 'not_final' | 'not_a_keyword' | 'not_our_number' | 'not_a_number' }
  | { outcome: 'duplicate'; type: string }
  | { outcome: 'ignored'; type: string }
  | { outcome: 'refused'; type?: string; reason: string };

/**
 * The ports the report function uses. `smsFrom`: the service's own number (`ACS_SMS_FROM`); a
 * reply to another number of the same resource is not ours to apply. Unset (the development
 * outbox): every reply counts.
 */
export type ReportDepsOf = Pick<FanoutDeps, 'database' | 'logger' | 'telemetry' | 'clock'> & { smsFrom?: string | undefined };

const EMAIL_RESULTS: Readonly<Record<string, ReportedResult>> = {
  Delivered: 'delivered',
  Bounced: 'hard_bounce',
  Suppressed: 'hard_bounce',
  Failed: 'failed',
  Quarantined: 'failed',
  FilteredSpam: 'failed',
};

/**
 * Applies one Azure Communication Services event (the `communication-events` function):
 * - an SMS delivery report settles its ledger row (named by the SMS's tag, else its message id):
 *   `Delivered` → `delivered`, `Failed` → `failed`; other statuses are not final and change nothing;
 * - a reply SMS that is STOP (or another opt-out keyword) records the number's opt-out, START takes
 *   it back; every other reply is ignored (and never logged: it is a message from a person);
 * - an e-mail delivery report settles the row of its operation id, an announcement's or an account
 *   notice's (each ledger's rows hold the ids their e-mails were sent under): `Delivered` → `delivered`;
 *   `Bounced` / `Suppressed` → `hard_bounce`, and the address is marked so it is never tried again;
 *   `Failed`, `Quarantined`, `FilteredSpam` → `failed` (with the status as provider code).
 * Each event id is recorded with its effects in one transaction, so a redelivered event changes
 * nothing twice; reports for rows already settled, or for messages this ledger does not know,
 * change nothing either. Malformed events are refused (a warn line naming the problem, never a
 * value) and acknowledged: sending them again would not make them readable.
 * Throws only when the database fails: the host then answers Event Grid with an error, and it retries.
 */
export async function applyCommunicationEvent(input: unknown, deps: ReportDepsOf): Promise<EventOutcome> {
  const parsed = parseCommunicationEvent(input, deps.clock.now());
  if (!parsed.ok) {
    deps.logger.warn({ eventType: parsed.type ?? null, reason: parsed.reason }, 'communication event refused');
    return { outcome: 'refused', reason: parsed.reason, ...(parsed.type ? { type: parsed.type } : {}) };
  }
  const { event } = parsed;
  if (event.kind === 'other') {
    deps.logger.debug({ eventType: event.type }, 'communication event of another type acknowledged');
    return { outcome: 'ignored', type: event.type };
  }
  const db = await deps.database.get();
  const receivedAt = deps.clock.now().toISOString();
  const outcome = await db.transaction(async (tx) => {
    if (!(await recordProviderEvent(tx, event, receivedAt))) return { outcome: 'duplicate', type: event.type } as const;
    return applyEvent(tx, event, receivedAt, deps.smsFrom);
  });
  report(deps, event, outcome);
  return outcome;
}

async function applyEvent(tx: Database | SqlExecutor, event: CommunicationEvent, now: string, smsFrom: string | undefined): Promise<EventOutcome> {
  const type = event.type;
  switch (event.kind) {
    case 'sms_delivery_report': {
      const status = event.data.deliveryStatus;
      const result: ReportedResult | undefined = status === 'Delivered' ? 'delivered' : status === 'Failed' ? 'failed' : undefined;
      if (!result) return { outcome: 'no_change', type, why: 'not_final' };
      const tagged = keyOfSmsReportTag(event.data.tag);
      const key = await settleReportedDelivery(
        tx,
        tagged ? { row: tagged } : { channel: 'sms', providerMessageId: event.data.messageId },
        { result, providerMessageId: event.data.messageId, ...(result === 'failed' ? { providerCode: safeLabel(status) ?? 'Failed' } : {}) },
        now,
      );
      return key ? { outcome: 'applied', type, result, key } : { outcome: 'no_change', type, why: 'unmatched' };
    }
    case 'sms_received': {
      if (smsFrom !== undefined && canonicalPhone(event.data.to) !== canonicalPhone(smsFrom)) {
        return { outcome: 'no_change', type, why: 'not_our_number' };
      }
      const keyword = smsKeywordOf(event.data.message);
      if (!keyword) return { outcome: 'no_change', type, why: 'not_a_keyword' };
      // Never later than now: a reply dated in the future would outrank every later one.
      const sentAt = new Date(Math.min(Date.parse(event.data.receivedTimestamp), Date.parse(now))).toISOString();
      const recorded =
        keyword === 'stop' ? await recordProviderSmsOptOut(tx, event.data.from, sentAt) : await clearProviderSmsOptOut(tx, event.data.from, sentAt);
      if (!recorded) return { outcome: 'no_change', type, why: 'not_a_number' };
      return { outcome: 'applied', type, result: keyword === 'stop' ? 'sms_stop' : 'sms_start' };
    }
    case 'email_delivery_report': {
      const result = EMAIL_RESULTS[event.data.status];
      if (!result) return { outcome: 'no_change', type, why: 'not_final' };
      if (result === 'hard_bounce') await markEmailHardBounce(tx, event.data.recipient, event.data.status, now);
      const key = await settleReportedDelivery(
        tx,
        // The operation id is a GUID this service chose in lower case; ACS may echo it in upper case.
        { channel: 'email', providerMessageId: event.data.messageId.toLowerCase() },
        { result, ...(result === 'delivered' ? {} : { providerCode: safeLabel(event.data.status) ?? 'Failed' }) },
        now,
      );
      return key ? { outcome: 'applied', type, result, key } : { outcome: 'no_change', type, why: 'unmatched' };
    }
    case 'other':
      return { outcome: 'ignored', type };
  }
}

/** One line per event (ids, type and result only; the row named by its subject, `announcementId` or `noticeId`), and the `notification.delivery` event of a settled row. */
function report(deps: ReportDepsOf, event: CommunicationEvent, outcome: EventOutcome): void {
  const fields = { eventType: event.type, eventId: event.id };
  if (outcome.outcome === 'applied') {
    const delivery = outcome.key
      ? { ...subjectOf(outcome.key), recipientUserId: outcome.key.userId, channel: outcome.key.channel }
      : {};
    const level = outcome.result === 'failed' || outcome.result === 'hard_bounce' ? 'warn' : 'info';
    deps.logger[level]({ ...fields, ...delivery, result: outcome.result }, 'communication event applied');
    if (outcome.key && outcome.result !== 'sms_stop' && outcome.result !== 'sms_start') {
      deps.telemetry.trackEvent('notification.delivery', { channel: outcome.key.channel, result: outcome.result });
    }
    return;
  }
  deps.logger.debug({ ...fields, outcome: outcome.outcome, ...('why' in outcome ? { why: outcome.why } : {}) }, 'communication event changed nothing');
}
