import { defineBackgroundFunction } from '../shared/composition/app-functions';
import { FANOUT_SERVICE_NAME, fanoutDepsOf } from '../shared/composition/fanout-services';
import { settleAcceptedDeliveries } from '../shared/notifications';

/**
 * On `DELIVERY_SETTLE_SCHEDULE` (every 15 minutes): settles SMS and e-mail deliveries (announcements'
 * and account notices') whose report never came (an e-mail's operation is asked once), and forgets
 * old provider event ids.
 */
export const settleDeliveries = defineBackgroundFunction({
  kind: 'timer',
  name: 'delivery-settle-timer',
  schedule: (config) => config.schedules.deliverySettle,
  logsWith: { deps: fanoutDepsOf, service: FANOUT_SERVICE_NAME },
  handler: async (services) => {
    await settleAcceptedDeliveries(fanoutDepsOf(services));
  },
});
