import { errorFields } from '../../logging/logger';
import type { DeliveryResult } from '../ledger/delivery-ledger';
import type { LedgerSubject } from '../ledger/leased-rows';
import type { FanoutDeps } from './fanout-deps';
import { ProviderDeliveryError } from './fanout-error';
import type { Channel, DeliveryOutcome } from '../../ports/delivery';

/**
 * The log lines and telemetry of deliveries (spec section 6): one `delivery attempt` line per
 * recipient × channel with its result (info for success, warn for a hard bounce or a stale token,
 * error with the provider's code for a provider error), a warn line per retry, and one
 * `notification.delivery` event per result (per device for push). Only ids, channels, results and provider codes: never
 * an address, a phone number, a push token or the announcement's text.
 */

/** What a delivery's lines name it by: its announcement, or the account notice it delivers (its ledger row's subject). */
export type SubjectFacts = LedgerSubject;

export type DeliveryFacts = SubjectFacts & {
  recipientUserId: string;
  channel: Channel;
};

export type ReportDeps = Pick<FanoutDeps, 'logger' | 'telemetry'>;

/** What a send attempt can end in (opt-outs and the spend cap are decided before any send). */
export type AttemptResult = Exclude<DeliveryResult, 'opted_out' | 'budget_exceeded' | 'delivered' | 'failed'>;

/**
 * A provider attempt's final result for one recipient on one channel.
 * @param options.event false for push, whose events count devices (`reportPushMessage`), not recipients.
 */
export function reportAttempt(
  deps: ReportDeps,
  facts: DeliveryFacts,
  attempt: { result: AttemptResult; providerCode?: string; tries: number; transient?: boolean },
  options: { event?: boolean } = {},
): void {
  const fields = { ...facts, result: attempt.result, tries: attempt.tries, ...(attempt.providerCode ? { providerCode: attempt.providerCode } : {}) };
  switch (attempt.result) {
    case 'success':
    case 'accepted':
      deps.logger.info(fields, 'delivery attempt');
      break;
    case 'hard_bounce':
      deps.logger.warn({ ...fields, addressMarked: true }, 'delivery attempt');
      break;
    case 'stale_token':
      deps.logger.warn(fields, 'delivery attempt');
      break;
    case 'provider_error': {
      const error = new ProviderDeliveryError(facts.channel, attempt.providerCode ?? 'unknown');
      deps.logger.error(
        { ...fields, transient: attempt.transient ?? false, errorCode: 'provider_error', ...errorFields(error) },
        'delivery attempt',
      );
      deps.telemetry.trackException(error, {
        errorCode: 'provider_error',
        channel: facts.channel,
        providerCode: attempt.providerCode ?? 'unknown',
      });
      break;
    }
  }
  if (options.event !== false) deps.telemetry.trackEvent('notification.delivery', { channel: facts.channel, result: attempt.result });
}

/**
 * The `notification.delivery` event of one push message (one device): push counts devices, so that
 * each stale token removed is one `stale_token` (the token-removal alert counts them).
 */
export function reportPushMessage(deps: ReportDeps, outcome: DeliveryOutcome): void {
  // A transient failure is not a result: the message is owed and will be sent again.
  if (outcome.result === 'provider_error' && outcome.transient) return;
  deps.telemetry.trackEvent('notification.delivery', { channel: 'push', result: outcome.result });
}

/**
 * A transient provider error that will be tried again (after `delayMs`, when the caller decides
 * the wait; the ACS SDKs decide their own).
 */
export function reportRetry(
  deps: ReportDeps,
  facts: SubjectFacts & { channel: Channel; recipientUserId?: string },
  providerCode: string,
  failedTries: number,
  delayMs?: number,
): void {
  deps.logger.warn({ ...facts, providerCode, failedTries, ...(delayMs === undefined ? {} : { delayMs }) }, 'delivery attempt failed; retrying');
}

/** An SMS that was not sent because the recipient opted out (spec 6: "SMS opt-out evaluated and suppressed"). */
export function reportOptedOut(deps: ReportDeps, facts: DeliveryFacts, reason: 'user_choice' | 'provider_stop'): void {
  deps.logger.info({ ...facts, result: 'opted_out', reason }, 'sms suppressed: recipient opted out');
  deps.telemetry.trackEvent('notification.delivery', { channel: facts.channel, result: 'opted_out' });
}

/** An SMS that was not sent because the month's spend cap is reached. */
export function reportBudgetExceeded(deps: ReportDeps, facts: DeliveryFacts): void {
  deps.logger.info({ ...facts, result: 'budget_exceeded' }, 'sms suppressed: monthly spend cap reached');
  deps.telemetry.trackEvent('notification.delivery', { channel: facts.channel, result: 'budget_exceeded' });
}

/** A push token the push service no longer knows, removed (spec 6: "Stale push token removed"; no token in the line). */
export function reportStaleToken(deps: ReportDeps, facts: SubjectFacts & { recipientUserId: string }, providerCode: string): void {
  deps.logger.warn({ ...facts, channel: 'push', providerCode }, 'stale push token removed');
}

/**
 * A send whose outcome is unknown: its first send (before a crash) is older than the provider
 * recognises a resend, so it is not sent again; the provider's report or operation decides it.
 */
export function reportOutcomeUnknown(deps: ReportDeps, facts: DeliveryFacts, decided: 'await_report' | 'operation_read' | 'sent_again'): void {
  deps.logger.warn({ ...facts, errorCode: 'outcome_unknown', decided }, 'delivery outcome unknown after an interrupted send');
}
