import { acceptedBefore, settleReportedDelivery, type AcceptedDelivery, type ReportedResult } from '../ledger/delivery-ledger';
import { forgetProviderEvents } from '../ledger/provider-events';
import { OUTCOME_UNKNOWN } from '../ledger/send-repeatability';
import type { FanoutDeps } from '../engine/fanout-deps';

/**
 * The fallback for delivery reports that never come (a lost Event Grid delivery, a carrier that
 * reports nothing), so no ledger row stays `accepted` for ever:
 * - an e-mail accepted over an hour ago gets one status request for its operation: `Succeeded` →
 *   `success` (sent, no report), `Failed` → `failed` or `hard_bounce` (the address is not marked
 *   here: the row does not say which address the e-mail went to, and ACS's own suppression list
 *   keeps refusing it); an operation still running after a day → `failed` (`no_final_status`); a
 *   failed request leaves the row for the next run, and after a day it is `success` (`no_report`);
 * - an SMS accepted over two days ago → `success` (`no_report`): ACS has no status request for SMS;
 *   one whose send was interrupted and not resent (`outcome_unknown`) → `failed` (`outcome_unknown`);
 * - provider event ids older than a week are forgotten (Event Grid retries for at most a day).
 */

/** How long an e-mail's report may take before its operation is asked (ACS reports within minutes). */
export const EMAIL_REPORT_WAIT_MS = 60 * 60 * 1000;
/** An e-mail operation still running after this long is given up on. */
export const EMAIL_OPERATION_LIMIT_MS = 24 * 60 * 60 * 1000;
/** How long an SMS's delivery report may take (carriers may report a day late). */
export const SMS_REPORT_WAIT_MS = 48 * 60 * 60 * 1000;
/** Rows looked at per channel and run. */
export const SETTLE_BATCH = 500;
/** Status requests of one run stop after this long (the function timeout is 5 minutes); the rest wait for the next run. */
export const SETTLE_RUN_BUDGET_MS = 2 * 60 * 1000;

/** What one run did (its info line, and tests). */
export interface SettleRun {
  settled: number;
  stillWaiting: number;
  eventIdsForgotten: number;
}

/** The ports of the settle timer. */
export type SettleDeps = Pick<FanoutDeps, 'database' | 'providers' | 'logger' | 'telemetry' | 'clock'>;

/** One run of the settle timer. */
export async function settleAcceptedDeliveries(deps: SettleDeps, limit = SETTLE_BATCH): Promise<SettleRun> {
  const db = await deps.database.get();
  const now = deps.clock.now();
  const at = now.toISOString();
  const run: SettleRun = { settled: 0, stillWaiting: 0, eventIdsForgotten: 0 };
  const settle = async (row: AcceptedDelivery, result: ReportedResult, providerCode: string): Promise<void> => {
    const key = await settleReportedDelivery(db, { key: row }, { result, providerCode }, at);
    if (!key) return;
    run.settled += 1;
    deps.telemetry.trackEvent('notification.delivery', { channel: row.channel, result });
    const level = result === 'success' ? 'info' : 'warn';
    deps.logger[level](
      { announcementId: row.announcementId, recipientUserId: row.userId, channel: row.channel, result, providerCode, source: 'settle' },
      'accepted delivery settled without a report',
    );
  };

  for (const row of await acceptedBefore(db, 'sms', new Date(now.getTime() - SMS_REPORT_WAIT_MS).toISOString(), limit)) {
    // A send whose outcome was unknown (interrupted, too late to resend) and that no report ever
    // confirmed most likely never went out: not counted as delivered.
    if (row.providerCode === OUTCOME_UNKNOWN) await settle(row, 'failed', OUTCOME_UNKNOWN);
    else await settle(row, 'success', 'no_report');
  }

  const readOperation = deps.providers.email.operationOutcome?.bind(deps.providers.email);
  const givesUpAt = now.getTime() + SETTLE_RUN_BUDGET_MS;
  for (const row of await acceptedBefore(db, 'email', new Date(now.getTime() - EMAIL_REPORT_WAIT_MS).toISOString(), limit)) {
    const pastLimit = Date.parse(row.updatedAt) <= now.getTime() - EMAIL_OPERATION_LIMIT_MS;
    if (!readOperation || !row.providerMessageId || deps.clock.now().getTime() > givesUpAt) {
      // Nothing to ask (the outbox), or this run's time is spent: only rows past the limit are settled now.
      if (!readOperation || !row.providerMessageId || pastLimit) await settle(row, 'success', 'no_report');
      else run.stillWaiting += 1;
      continue;
    }
    const operation = await readOperation(row.providerMessageId);
    if (operation.state !== 'ended') {
      // Still running, or the question failed (a role not granted yet, an operation ACS forgot): no news
      // of the message itself, so the row waits; after a day it is settled as sent without a report.
      if (!pastLimit) run.stillWaiting += 1;
      else if (operation.state === 'running') await settle(row, 'failed', 'no_final_status');
      else await settle(row, 'success', 'no_report');
      continue;
    }
    const { outcome } = operation;
    if (outcome.result === 'hard_bounce') await settle(row, 'hard_bounce', outcome.code);
    else if (outcome.result === 'provider_error' || outcome.result === 'stale_token') await settle(row, 'failed', outcome.code);
    else await settle(row, 'success', 'no_report');
  }

  run.eventIdsForgotten = await forgetProviderEvents(db, now);
  deps.logger.info({ ...run }, 'accepted deliveries checked');
  return run;
}
