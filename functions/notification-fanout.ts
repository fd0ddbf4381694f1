import { isLastAttempt } from '../shared/background/background-handler';
import { defineBackgroundFunction } from '../shared/composition/app-functions';
import { FANOUT_SERVICE_NAME, fanoutDepsOf } from '../shared/composition/fanout-services';
import { FANOUT_QUEUE_NAME } from '../shared/messages/fanout-message';
import { handleFanoutMessage } from '../shared/notifications';

/**
 * The notification fan-out (contract section 10) on the `notification-fanout` queue: the first
 * message of a published announcement splits the audience into batch messages; each batch message
 * delivers by push, SMS and e-mail. A failure is thrown after its error line, so the queue
 * redelivers the message and moves it to `notification-fanout-poison` after `maxDequeueCount` (5);
 * on that last try the batch's unfinished deliveries are marked failed (`npm run redrive-poison`
 * sends them again).
 */
export const notificationFanout = defineBackgroundFunction({
  kind: 'queue',
  name: 'notification-fanout',
  queueName: FANOUT_QUEUE_NAME,
  connection: 'AzureWebJobsStorage',
  logsWith: { deps: fanoutDepsOf, service: FANOUT_SERVICE_NAME },
  handler: async (services, message, context) => {
    await handleFanoutMessage(message, fanoutDepsOf(services), { lastAttempt: isLastAttempt(context) });
  },
});
