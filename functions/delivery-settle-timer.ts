import { app, type Timer } from '@azure/functions';
import { backgroundHandler } from '../shared/background/background-handler';
import { appConfig } from '../shared/composition-root';
import { appFanoutDeps, FANOUT_SERVICE_NAME } from '../shared/composition/fanout-services';
import { settleAcceptedDeliveries } from '../shared/notifications/reports/settle-accepted-deliveries';

/**
 * On `DELIVERY_SETTLE_SCHEDULE` (every 15 minutes): settles SMS and e-mail deliveries whose report
 * never came (an e-mail's operation is asked once), and forgets old provider event ids.
 */
export const settleDeliveries = backgroundHandler<Timer>(
  'delivery-settle-timer',
  appFanoutDeps,
  async () => {
    await settleAcceptedDeliveries(appFanoutDeps());
  },
  { service: FANOUT_SERVICE_NAME },
);

app.timer('delivery-settle-timer', { schedule: appConfig().schedules.deliverySettle, handler: settleDeliveries });
