import { defineBackgroundFunction, oncePerServices } from '../shared/composition/app-functions';
import { monitorMetricsSource } from '../shared/ingress/ingress-metrics-source';
import { recordIngressRequests } from '../shared/ingress/record-ingress-requests';

/** The metrics source of the settings' container app, if they name one (the SDK loads on its first read). */
const sourceOf = oncePerServices(({ config }) => (config.ingressMetrics ? monitorMetricsSource(config.ingressMetrics) : undefined));

/**
 * On `INGRESS_METRICS_SCHEDULE` (every minute): reads the Container Apps ingress's `Requests` metric
 * of the app's own container app for the last 5 whole minutes, split by status code category, and
 * reports the window's answers and 5xx as the `ingress.requests` event, which the API error-rate
 * alert weighs against the host's request telemetry. The metrics SDK loads on the first run, never
 * when the app starts.
 */
export const countIngressRequests = defineBackgroundFunction({
  kind: 'timer',
  name: 'ingress-requests-timer',
  schedule: (config) => config.schedules.ingressMetrics,
  handler: async (services) => {
    await recordIngressRequests({ ...services, source: sourceOf(services) });
  },
});
