import { app } from '@azure/functions';
import { appServices } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { checkReadiness } from '../shared/health/check-readiness';
import { errorFields } from '../shared/logging/logger';

/** Readiness: 200 when the database (and queue storage, where configured) answer; else 503. */
const route = 'ready';
const services = appServices();

export const ready = services.endpoint({ route }, async ({ log }) => {
  const report = await checkReadiness(services.readinessProbes);
  if (report.ready) return { status: 200, jsonBody: { status: 'ready', checks: report.checks } };
  for (const failure of report.failures) {
    log.error(
      { errorCode: 'service_unavailable', dependency: failure.dependency, ...errorFields(failure.cause) },
      'dependency unavailable',
    );
  }
  const unavailable = report.failures.map((failure) => failure.dependency).join(', ');
  return problem('service_unavailable', {
    detail: `Not ready: ${unavailable} unavailable.`,
    cause: report.failures[0]?.cause,
  });
});

app.http('ready', { route, methods: ['GET', 'HEAD'], authLevel: 'anonymous', handler: ready });
