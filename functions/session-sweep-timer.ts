import { sweepSignInThrottles } from '../shared/auth/sweep-sign-in-throttles';
import { defineBackgroundFunction } from '../shared/composition/app-functions';
import { sweepExpiredSessions } from '../shared/sessions/sweep-expired-sessions';

/**
 * On `SESSION_SWEEP_SCHEDULE` (hourly): records sessions that expired unseen (`session_expired`
 * audit rows), then deletes sign-in throttle rows that can no longer change an answer.
 */
export const sweepSessions = defineBackgroundFunction({
  kind: 'timer',
  name: 'session-sweep-timer',
  schedule: (config) => config.schedules.sessionSweep,
  handler: async (services) => {
    await sweepExpiredSessions(services);
    await sweepSignInThrottles(services);
  },
});
