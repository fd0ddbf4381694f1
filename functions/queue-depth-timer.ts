import { enqueueOwedFanouts } from '../shared/announcement-workflow/enqueue-fanout';
import { sampleQueueDepth } from '../shared/announcement-workflow/queue-depth';
import { defineBackgroundFunction } from '../shared/composition/app-functions';
import { enqueueOwedNotices } from '../shared/messages/account-notices';

/**
 * On `QUEUE_DEPTH_SCHEDULE` (every 5 minutes): samples the approval queue (`approval.queue_depth`
 * metric and event, a warn line when the oldest queued announcement waited over 48 hours), then
 * enqueues any fan-out a publish still owes (its enqueue failed and nobody published again) and
 * any account notice whose enqueue failed (a child's lock, when the queue was down).
 */
export const sampleApprovalQueue = defineBackgroundFunction({
  kind: 'timer',
  name: 'queue-depth-timer',
  schedule: (config) => config.schedules.queueDepth,
  handler: async (services) => {
    await sampleQueueDepth(services);
    await enqueueOwedFanouts(services);
    await enqueueOwedNotices(services);
  },
});
