import { app, type Timer } from '@azure/functions';
import { backgroundHandler } from '../shared/background/background-handler';
import { appConfig, appServices } from '../shared/composition-root';
import { costManagementSource } from '../shared/cost/cost-management-source';
import { recordDailyCost } from '../shared/cost/record-daily-cost';

/**
 * On `COST_CHECK_SCHEDULE` (once a day): reads the last 8 days of actual cost of `COST_SCOPE` from
 * Cost Management and reports yesterday's against its 7-day average and the expected daily cost
 * as the `cost.daily` event, which the cost alerts read. The Cost Management SDK loads on the first
 * run, never when the app starts.
 */
const { cost } = appConfig();
const source = cost.scope ? costManagementSource({ scope: cost.scope, clientId: cost.clientId }) : undefined;

export const checkDailyCost = backgroundHandler<Timer>('cost-check-timer', appServices, async () => {
  await recordDailyCost({ ...appServices(), source, expectedMonthly: cost.expectedMonthlyUsd });
});

app.timer('cost-check-timer', { schedule: appConfig().schedules.costCheck, handler: checkDailyCost });
