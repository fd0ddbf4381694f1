import { app } from '@azure/functions';
import { appServices } from '../shared/composition-root';
import { answerReadiness } from '../shared/health/answer-readiness';

/**
 * Readiness: 200 when the database (and queue storage, where configured) answer; else 503. From the
 * shutdown's start 503 too, so the platform stops routing here (`/api/health` stays 200).
 */
const route = 'ready';
const services = appServices();
const deps = { probes: services.readinessProbes, stopping: services.shutdown.stopping };

export const ready = services.endpoint({ route }, async ({ log }) => answerReadiness(deps, log));

app.http('ready', { route, methods: ['GET', 'HEAD'], authLevel: 'anonymous', handler: ready });
