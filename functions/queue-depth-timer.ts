import { app, type Timer } from '@azure/functions';
import { enqueueOwedFanouts } from '../shared/announcements/enqueue-fanout';
import { sampleQueueDepth } from '../shared/announcements/queue-depth';
import { backgroundHandler } from '../shared/background/background-handler';
import { appServices } from '../shared/composition-root';
import { enqueueOwedNotices } from '../shared/notifications/notices/account-notices';

/**
 * On `QUEUE_DEPTH_SCHEDULE` (every 5 minutes): samples the approval queue (`approval.queue_depth`
 * metric and event, a warn line when the oldest queued announcement waited over 48 hours), then
 * enqueues any fan-out a publish still owes (its enqueue failed and nobody published again) and
 * any account notice whose enqueue failed (a child's lock, when the queue was down).
 */
const services = appServices();

export const sampleApprovalQueue = backgroundHandler<Timer>('queue-depth-timer', services, async () => {
  await sampleQueueDepth(services);
  await enqueueOwedFanouts(services);
  await enqueueOwedNotices(services);
});

app.timer('queue-depth-timer', { schedule: services.config.schedules.queueDepth, handler: sampleApprovalQueue });
