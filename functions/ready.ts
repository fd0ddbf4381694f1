import { app } from '@azure/functions';
import { appServices, endpoint } from '../shared/composition-root';
import { answerReadiness } from '../shared/health/answer-readiness';

/**
 * Readiness: 200 when the database (and queue storage, where configured) answer; else 503. From the
 * shutdown's start 503 too, so the platform stops routing here (`/api/health` stays 200).
 */
const route = 'ready';

export const ready = endpoint({ route }, async ({ log }) => {
  const { readinessProbes, shutdown } = appServices();
  return answerReadiness({ probes: readinessProbes, stopping: shutdown.stopping }, log);
});

app.http('ready', { route, methods: ['GET', 'HEAD'], authLevel: 'anonymous', handler: ready });
