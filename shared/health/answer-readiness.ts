import { problem } from '../errors/problem';
import { SHUTTING_DOWN, type EndpointResult } from '../http/http-pipeline';
import { errorFields, type Logger } from '../logging/logger';
import { checkReadiness, type ReadinessProbe } from './check-readiness';

export interface ReadinessDeps {
  probes: readonly ReadinessProbe[];
  /** The shutdown's `stopping` signal: from then on the replica reports itself not ready. */
  stopping: AbortSignal;
}

/**
 * `GET /api/ready`'s answer: 200 when every dependency answers, 503 (an error line per dependency)
 * when one does not. Once the shutdown is stopping, 503 as well, but the pipeline's shutdown answer
 * (a warn line, no exception): it tells the platform to stop routing here, on every deploy and
 * scale-in, while the requests already routed are still served.
 */
export async function answerReadiness(deps: ReadinessDeps, log: Logger): Promise<EndpointResult> {
  const report = await checkReadiness(deps.probes, { stopping: deps.stopping });
  if (report.stopping) return SHUTTING_DOWN;
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
}
