import type { Logger } from '../logging/logger';
import type { Clock } from '../ports/clock';
import type { Telemetry } from '../telemetry/telemetry';
import type { DailyCostSource } from './cost-management-source';
import { addDays, assessDailyCost, lastWholeDay, TRAILING_DAYS, type DailyCostAssessment } from './daily-cost';

export interface DailyCostCheckDeps {
  /** Undefined when no cost scope is configured (`COST_SCOPE`): outside Azure there is nothing to read. */
  source: DailyCostSource | undefined;
  /** The expected monthly cost (`COST_EXPECTED_MONTHLY_USD`, the budget's amount). */
  expectedMonthly: number;
  clock: Clock;
  telemetry: Telemetry;
  logger: Logger;
}

/**
 * The daily cost check: reads the last 8 whole UTC days of cost (the day assessed and the 7 before
 * it), assesses the last one (`daily-cost.ts`) and reports it as one `cost.daily` event, which the
 * log alerts `cost-anomaly` and `daily-cost-above-baseline` read. A value that could not be
 * computed (no data, too short a baseline) is sent as an empty string, which the alerts' `todouble`
 * reads as null, so they stay quiet rather than fire on a guess.
 * @returns the assessment, or undefined when the check is not configured.
 */
export async function recordDailyCost(deps: DailyCostCheckDeps): Promise<DailyCostAssessment | undefined> {
  if (!deps.source) {
    deps.logger.warn('daily cost check not configured (COST_SCOPE is empty)');
    return undefined;
  }
  const day = lastWholeDay(deps.clock.now());
  const { series, currency } = await deps.source.readDailyCosts(addDays(day, -TRAILING_DAYS), day);
  const assessment = assessDailyCost(series, day, deps.expectedMonthly);
  const orEmpty = (value: number | null): number | string => value ?? '';
  deps.telemetry.trackEvent('cost.daily', {
    day: assessment.day,
    status: assessment.status,
    cost: orEmpty(assessment.cost),
    currency: currency ?? '',
    trailingAverage: orEmpty(assessment.trailingAverage),
    trailingDays: assessment.trailingDays,
    percentOfTrailingAverage: orEmpty(assessment.percentOfTrailingAverage),
    expectedDaily: assessment.expectedDaily,
    percentOfExpected: orEmpty(assessment.percentOfExpected),
  });
  deps.logger.info(
    {
      day: assessment.day,
      costStatus: assessment.status,
      trailingDays: assessment.trailingDays,
      percentOfTrailingAverage: assessment.percentOfTrailingAverage,
      percentOfExpected: assessment.percentOfExpected,
    },
    'daily cost assessed',
  );
  return assessment;
}
