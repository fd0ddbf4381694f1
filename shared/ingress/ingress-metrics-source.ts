import { managedIdentity } from '../azure/managed-identity';
import type { TokenCredential } from '@azure/core-auth';
import type { HttpClient } from '@azure/core-rest-pipeline';
import type { IngressWindow, RequestSeries } from './ingress-requests';

/**
 * Where the ingress's request counts come from: the `Requests` metric of the app's own container
 * app, read with the app's managed identity (role *Monitoring Reader* on the container app,
 * `infra/modules/metrics-reader.bicep`).
 */
export interface IngressMetricsSource {
  /** The per-minute `Requests` series of the window, one per status code category. */
  readRequestSeries(window: IngressWindow): Promise<RequestSeries[]>;
}

export interface IngressMetricsAccess {
  /** ARM id of the container app (`/subscriptions/…/providers/Microsoft.App/containerApps/<name>`). */
  resourceId: string;
  /** The regional metrics endpoint, `https://<region>.metrics.monitor.azure.com`. */
  endpoint: string;
  /** Client id of the user-assigned identity; undefined uses the default credential chain (development). */
  clientId: string | undefined;
}

/** Stand-ins for the network and the identity, for tests; production passes none. */
export interface MetricsClientOverrides {
  httpClient?: HttpClient;
  credential?: TokenCredential;
}

/**
 * The official Azure Monitor metrics SDK (`@azure/monitor-query-metrics`, the successor of
 * `@azure/monitor-query`'s metrics client). It and `@azure/identity` are loaded on the first read,
 * never on the start path of the function app.
 */
export function monitorMetricsSource(access: IngressMetricsAccess, overrides: MetricsClientOverrides = {}): IngressMetricsSource {
  // Built on the first read and kept: the timer runs every minute, and one client keeps one token.
  let metricsClient: import('@azure/monitor-query-metrics').MetricsClient | undefined;
  const clientOf = (): import('@azure/monitor-query-metrics').MetricsClient => {
    if (!metricsClient) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const metrics = require('@azure/monitor-query-metrics') as typeof import('@azure/monitor-query-metrics');
      const credential = overrides.credential ?? managedIdentity(access.clientId);
      metricsClient = new metrics.MetricsClient(access.endpoint, credential, overrides.httpClient ? { httpClient: overrides.httpClient } : {});
    }
    return metricsClient;
  };
  return {
    async readRequestSeries(window) {
      const client = clientOf();
      const [result] = await client.queryResources([access.resourceId], ['Requests'], 'Microsoft.App/containerApps', {
        startTime: window.start,
        endTime: window.end,
        interval: 'PT1M',
        aggregation: 'Total',
        // One series per category; `top` is the number of series, and there are at most five (1xx–5xx).
        filter: "statusCodeCategory eq '*'",
        top: 10,
      });
      return (result?.metrics ?? [])
        .filter((metric) => metric.name.toLowerCase() === 'requests')
        .flatMap((metric) => metric.timeseries)
        .map((series) => ({ dimensions: series.metadatavalues ?? [], points: series.data ?? [] }));
    },
  };
}
