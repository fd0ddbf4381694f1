import { app, type Timer } from '@azure/functions';
import { sweepSignInThrottles } from '../shared/auth/sweep-sign-in-throttles';
import { backgroundHandler } from '../shared/background/background-handler';
import { appConfig, appServices } from '../shared/composition-root';
import { sweepExpiredSessions } from '../shared/sessions/sweep-expired-sessions';

/**
 * On `SESSION_SWEEP_SCHEDULE` (hourly): records sessions that expired unseen (`session_expired`
 * audit rows), then deletes sign-in throttle rows that can no longer change an answer.
 */
export const sweepSessions = backgroundHandler<Timer>('session-sweep-timer', appServices, async () => {
  const services = appServices();
  await sweepExpiredSessions(services);
  await sweepSignInThrottles(services);
});

app.timer('session-sweep-timer', { schedule: appConfig().schedules.sessionSweep, handler: sweepSessions });
