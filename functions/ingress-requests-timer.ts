import { app, type Timer } from '@azure/functions';
import { backgroundHandler } from '../shared/background/background-handler';
import { appConfig, appServices } from '../shared/composition-root';
import { monitorMetricsSource } from '../shared/ingress/ingress-metrics-source';
import { recordIngressRequests } from '../shared/ingress/record-ingress-requests';

/**
 * On `INGRESS_METRICS_SCHEDULE` (every minute): reads the Container Apps ingress's `Requests` metric
 * of the app's own container app for the last 5 whole minutes, split by status code category, and
 * reports the window's answers and 5xx as the `ingress.requests` event, which the API error-rate
 * alert weighs against the host's request telemetry. The metrics SDK loads on the first run, never
 * when the app starts.
 */
const access = appConfig().ingressMetrics;
const source = access ? monitorMetricsSource(access) : undefined;

export const countIngressRequests = backgroundHandler<Timer>('ingress-requests-timer', appServices, async () => {
  await recordIngressRequests({ ...appServices(), source });
});

app.timer('ingress-requests-timer', { schedule: appConfig().schedules.ingressMetrics, handler: countIngressRequests });
