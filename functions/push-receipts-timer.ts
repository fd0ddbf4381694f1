import { app, type Timer } from '@azure/functions';
import { backgroundHandler } from '../shared/background/background-handler';
import { appConfig } from '../shared/composition-root';
import { checkPushReceipts } from '../shared/notifications/push/check-push-receipts';
import { appFanoutDeps, FANOUT_SERVICE_NAME } from '../shared/composition/fanout-services';

/**
 * Reads Expo's push receipts of tickets sent at least 15 minutes earlier: a `DeviceNotRegistered`
 * receipt removes the stale token (warn line, `notification.delivery` `stale_token`).
 */
export const checkReceipts = backgroundHandler<Timer>(
  'push-receipts-timer',
  appFanoutDeps,
  async () => {
    await checkPushReceipts(appFanoutDeps());
  },
  { service: FANOUT_SERVICE_NAME },
);

app.timer('push-receipts-timer', { schedule: appConfig().schedules.pushReceipts, handler: checkReceipts });
