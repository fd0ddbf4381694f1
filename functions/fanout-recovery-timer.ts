import { app, type Timer } from '@azure/functions';
import { backgroundHandler } from '../shared/background/background-handler';
import { appConfig } from '../shared/composition-root';
import { appFanoutDeps, FANOUT_SERVICE_NAME } from '../shared/composition/fanout-services';
import { redriveStalledBatches } from '../shared/notifications/fanout/redrive-stalled-batches';

/**
 * On `FANOUT_RECOVERY_SCHEDULE` (every 30 seconds): re-drives fan-out batches whose ledger lease ran
 * out with no live holder (a crashed instance), by enqueueing a fresh batch message, so delivery
 * resumes within 90 seconds of a crash instead of when the host's 10-minute queue lease ends.
 */
export const recoverFanoutBatches = backgroundHandler<Timer>(
  'fanout-recovery-timer',
  appFanoutDeps,
  async () => {
    await redriveStalledBatches(appFanoutDeps());
  },
  { service: FANOUT_SERVICE_NAME },
);

app.timer('fanout-recovery-timer', { schedule: appConfig().schedules.fanoutRecovery, handler: recoverFanoutBatches });
