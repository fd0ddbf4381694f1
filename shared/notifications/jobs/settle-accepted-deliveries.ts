import { LEASED_LEDGERS, subjectOf } from '../ledger/leased-rows';
import { acceptedBefore, settleReportedDelivery, type AcceptedDelivery, type ReportedResult } from '../ledger/reported-deliveries';
import { forgetProviderEvents } from '../ledger/provider-events';
import { OUTCOME_UNKNOWN } from '../ledger/send-repeatability';
import type { FanoutDeps } from '../engine/fanout-deps';
import type { EmailOperationState } from '../../ports/delivery';

/**
 * The fallback for delivery reports that never come (a lost Event Grid delivery, a carrier that
 * reports nothing), so no row of either ledger (an announcement's, an account notice's) stays
 * `accepted` for ever:
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
/** Rows looked at per ledger, channel and run. */
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

/** What a row becomes: its result and code, or `wait` for a later run. */
type Settlement = { result: ReportedResult; providerCode: string } | 'wait';

/** One run of the settle timer, over every ledger (the announcements' and the account notices'). */
export async function settleAcceptedDeliveries(deps: SettleDeps, limit = SETTLE_BATCH): Promise<SettleRun> {
  const db = await deps.database.get();
  const now = deps.clock.now();
  const run: SettleRun = { settled: 0, stillWaiting: 0, eventIdsForgotten: 0 };
  const settle = async (row: AcceptedDelivery, settlement: Settlement): Promise<void> => {
    if (settlement === 'wait') {
      run.stillWaiting += 1;
      return;
    }
    const { result, providerCode } = settlement;
    const key = await settleReportedDelivery(db, { row }, settlement, now.toISOString());
    if (!key) return;
    run.settled += 1;
    deps.telemetry.trackEvent('notification.delivery', { channel: key.channel, result });
    deps.logger[result === 'success' ? 'info' : 'warn'](
      { ...subjectOf(key), recipientUserId: key.userId, channel: key.channel, result, providerCode, source: 'settle' },
      'accepted delivery settled without a report',
    );
  };
  const before = (waitMs: number) => new Date(now.getTime() - waitMs).toISOString();

  for (const ledger of LEASED_LEDGERS) {
    for (const row of await acceptedBefore(db, ledger, 'sms', before(SMS_REPORT_WAIT_MS), limit)) await settle(row, smsSettlement(row));
  }
  const readOperation = deps.providers.email.operationOutcome?.bind(deps.providers.email);
  // One budget for the run's status requests, whichever ledger their rows are in.
  const givesUpAt = now.getTime() + SETTLE_RUN_BUDGET_MS;
  for (const ledger of LEASED_LEDGERS) {
    for (const row of await acceptedBefore(db, ledger, 'email', before(EMAIL_REPORT_WAIT_MS), limit)) {
      const pastLimit = Date.parse(row.updatedAt) <= now.getTime() - EMAIL_OPERATION_LIMIT_MS;
      await settle(row, await emailSettlement(row, { pastLimit, outOfTime: deps.clock.now().getTime() > givesUpAt }, readOperation));
    }
  }

  run.eventIdsForgotten = await forgetProviderEvents(db, now);
  deps.logger.info({ ...run }, 'accepted deliveries checked');
  return run;
}

/**
 * An SMS past its report's wait: sent without a report, unless its send was interrupted and not
 * resent (`outcome_unknown`) and no report ever confirmed it: then it most likely never went out,
 * and is not counted as delivered.
 */
function smsSettlement(row: AcceptedDelivery): Settlement {
  return row.providerCode === OUTCOME_UNKNOWN ? { result: 'failed', providerCode: OUTCOME_UNKNOWN } : { result: 'success', providerCode: 'no_report' };
}

/**
 * An e-mail past its report's wait, by its operation's state. With nothing to ask (the outbox has
 * no operations) it is sent without a report; once the run's time is spent (`outOfTime`) only a
 * row past the limit is settled now.
 */
async function emailSettlement(
  row: AcceptedDelivery,
  { pastLimit, outOfTime }: { pastLimit: boolean; outOfTime: boolean },
  readOperation: ((operationId: string) => Promise<EmailOperationState>) | undefined,
): Promise<Settlement> {
  const noReport: Settlement = { result: 'success', providerCode: 'no_report' };
  if (!readOperation || !row.providerMessageId) return noReport;
  if (outOfTime) return pastLimit ? noReport : 'wait';
  const operation = await readOperation(row.providerMessageId);
  if (operation.state !== 'ended') {
    // Still running, or the question failed (a role not granted yet, an operation ACS forgot): no news
    // of the message itself, so the row waits; after a day it is settled as sent without a report.
    if (!pastLimit) return 'wait';
    return operation.state === 'running' ? { result: 'failed', providerCode: 'no_final_status' } : noReport;
  }
  const { outcome } = operation;
  if (outcome.result === 'hard_bounce') return { result: 'hard_bounce', providerCode: outcome.code };
  if (outcome.result === 'provider_error' || outcome.result === 'stale_token') return { result: 'failed', providerCode: outcome.code };
  return noReport;
}
