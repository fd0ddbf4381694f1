import { defineEndpoint } from '../shared/composition/app-functions';
import { answerReadiness } from '../shared/health/answer-readiness';
import { readinessSchema } from '../shared/health/check-readiness';

/**
 * Readiness: 200 when the database (and queue storage, where configured) answer; else 503. From the
 * shutdown's start 503 too, so the platform stops routing here (`/api/health` stays 200).
 */
export const ready = defineEndpoint({
  name: 'ready',
  method: 'get',
  route: 'ready',
  head: true,
  operationId: 'ready',
  tag: 'probes',
  summary: 'Readiness: every dependency answers (503 when one does not, and once the instance is shutting down)',
  access: 'public',
  success: {
    status: 200,
    description: 'Ready.',
    body: { name: 'Readiness', schema: readinessSchema },
    example: { status: 'ready', checks: { database: 'ok' } },
  },
  problems: [],
  handler: async ({ log }, { readinessProbes, shutdown }) =>
    answerReadiness({ probes: readinessProbes, stopping: shutdown.stopping }, log),
});
