import { defineBackgroundFunction } from '../shared/composition/app-functions';
import { FANOUT_SERVICE_NAME, fanoutDepsOf } from '../shared/composition/fanout-services';
import { checkPushReceipts } from '../shared/notifications';

/**
 * On `PUSH_RECEIPTS_SCHEDULE`: reads Expo's push receipts of tickets sent at least 15 minutes
 * earlier: a `DeviceNotRegistered` receipt removes the stale token (warn line,
 * `notification.delivery` `stale_token`).
 */
export const checkReceipts = defineBackgroundFunction({
  kind: 'timer',
  name: 'push-receipts-timer',
  schedule: (config) => config.schedules.pushReceipts,
  logsWith: { deps: fanoutDepsOf, service: FANOUT_SERVICE_NAME },
  handler: async (services) => {
    await checkPushReceipts(fanoutDepsOf(services));
  },
});
