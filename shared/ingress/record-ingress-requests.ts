import type { Logger } from '../logging/logger';
import type { Clock } from '../ports/clock';
import type { Telemetry } from '../telemetry/telemetry';
import type { IngressMetricsSource } from './ingress-metrics-source';
import { countIngressRequests, ingressWindow, type IngressRequestCounts } from './ingress-requests';

export interface IngressRequestsDeps {
  /** Undefined when no container app is configured (`INGRESS_METRICS_RESOURCE_ID`): outside Azure there is no ingress. */
  source: IngressMetricsSource | undefined;
  clock: Clock;
  telemetry: Telemetry;
  logger: Logger;
}

/**
 * Reads the ingress's answers of the last whole 5 minutes (`ingress-requests.ts`) and reports them
 * as one `ingress.requests` event, which `api-error-rate-critical` weighs against the host's own
 * request telemetry. Counts and the window only: the metric carries no path, user or address.
 * @returns the counts, or undefined when the check is not configured.
 */
export async function recordIngressRequests(deps: IngressRequestsDeps): Promise<IngressRequestCounts | undefined> {
  if (!deps.source) {
    deps.logger.debug('ingress request count not configured (INGRESS_METRICS_RESOURCE_ID is empty)');
    return undefined;
  }
  const window = ingressWindow(deps.clock.now());
  const counts = countIngressRequests(await deps.source.readRequestSeries(window), window);
  deps.telemetry.trackEvent('ingress.requests', {
    windowStart: window.start.toISOString(),
    windowEnd: window.end.toISOString(),
    requests: counts.requests,
    serverErrors: counts.serverErrors,
    minutesWithData: counts.minutesWithData,
  });
  deps.logger.info(
    { windowStart: window.start.toISOString(), requests: counts.requests, serverErrors: counts.serverErrors, minutesWithData: counts.minutesWithData },
    'ingress requests counted',
  );
  return counts;
}
