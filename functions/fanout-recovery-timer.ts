import { defineBackgroundFunction } from '../shared/composition/app-functions';
import { FANOUT_SERVICE_NAME, fanoutDepsOf } from '../shared/composition/fanout-services';
import { redriveStalledBatches, redriveStalledMessages } from '../shared/notifications';

/**
 * On `FANOUT_RECOVERY_SCHEDULE` (every 30 seconds): re-drives the fan-out queue's messages whose
 * holder died (or that a dead host took before it wrote anything), and fan-out batches whose ledger
 * lease ran out with no live holder, by enqueueing fresh messages, so delivery resumes within
 * 90 seconds of a crash instead of when the host's 10-minute queue lease ends.
 */
export const recoverFanoutBatches = defineBackgroundFunction({
  kind: 'timer',
  name: 'fanout-recovery-timer',
  schedule: (config) => config.schedules.fanoutRecovery,
  logsWith: { deps: fanoutDepsOf, service: FANOUT_SERVICE_NAME },
  handler: async (services) => {
    const deps = fanoutDepsOf(services);
    await redriveStalledMessages({ ...deps, noticeQueue: services.noticeQueue });
    await redriveStalledBatches(deps);
  },
});
