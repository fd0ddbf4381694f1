import { app, type Timer } from '@azure/functions';
import { backgroundHandler } from '../shared/background/background-handler';
import { appServices } from '../shared/composition-root';
import { checkPushReceipts } from '../shared/notifications/push/check-push-receipts';
import { appFanoutDeps, FANOUT_SERVICE_NAME } from '../shared/notifications/fanout/fanout-services';

/**
 * Reads Expo's push receipts of tickets sent at least 15 minutes earlier: a `DeviceNotRegistered`
 * receipt removes the stale token (warn line, `notification.delivery` `stale_token`).
 */
const deps = appFanoutDeps();

export const checkReceipts = backgroundHandler<Timer>(
  'push-receipts-timer',
  deps,
  async () => {
    await checkPushReceipts(deps);
  },
  { service: FANOUT_SERVICE_NAME },
);

app.timer('push-receipts-timer', { schedule: appServices().config.schedules.pushReceipts, handler: checkReceipts });
