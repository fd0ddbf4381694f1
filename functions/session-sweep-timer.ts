import { app, type Timer } from '@azure/functions';
import { backgroundHandler } from '../shared/background/background-handler';
import { appServices } from '../shared/composition-root';
import { sweepExpiredSessions } from '../shared/sessions/sweep-expired-sessions';

/** Records sessions that expired unseen (`session_expired` audit rows), on `SESSION_SWEEP_SCHEDULE` (hourly). */
const services = appServices();

export const sweepSessions = backgroundHandler<Timer>('session-sweep-timer', services, async () => {
  await sweepExpiredSessions(services);
});

app.timer('session-sweep-timer', { schedule: services.config.schedules.sessionSweep, handler: sweepSessions });
