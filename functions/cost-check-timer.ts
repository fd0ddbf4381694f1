import { defineBackgroundFunction, oncePerServices } from '../shared/composition/app-functions';
import { costManagementSource } from '../shared/cost/cost-management-source';
import { recordDailyCost } from '../shared/cost/record-daily-cost';

/** The Cost Management source of the settings' scope, if they name one (the SDK loads on its first read). */
const sourceOf = oncePerServices(({ config: { cost } }) =>
  cost.scope ? costManagementSource({ scope: cost.scope, clientId: cost.clientId }) : undefined,
);

/**
 * On `COST_CHECK_SCHEDULE` (once a day): reads the last 8 days of actual cost of `COST_SCOPE` from
 * Cost Management and reports yesterday's against its 7-day average and the expected daily cost
 * as the `cost.daily` event, which the cost alerts read. The Cost Management SDK loads on the first
 * run, never when the app starts.
 */
export const checkDailyCost = defineBackgroundFunction({
  kind: 'timer',
  name: 'cost-check-timer',
  schedule: (config) => config.schedules.costCheck,
  handler: async (services) => {
    await recordDailyCost({ ...services, source: sourceOf(services), expectedMonthly: services.config.cost.expectedMonthlyUsd });
  },
});
