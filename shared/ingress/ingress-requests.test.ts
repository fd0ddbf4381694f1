import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createHttpHeaders, type HttpClient } from '@azure/core-rest-pipeline';
import { describe, expect, it } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import { createLogger } from '../logging/logger';
import { createInMemoryTelemetry } from '../telemetry/in-memory';
import { monitorMetricsSource, type IngressMetricsSource } from './ingress-metrics-source';
import { countIngressRequests, ingressWindow, isServerErrorSeries, type RequestSeries } from './ingress-requests';
import { recordIngressRequests } from './record-ingress-requests';

const rule = (
  JSON.parse(readFileSync(path.resolve(__dirname, '../../infra/alerts/critical.json'), 'utf8')) as {
    alerts: { name: string; threshold: number; query?: string[] }[];
  }
).alerts.find((alert) => alert.name === 'api-error-rate-critical');
const THRESHOLD = rule?.threshold ?? Number.NaN;

const NOW = new Date('2026-05-06T10:07:31Z');
const WINDOW = ingressWindow(NOW);
const minute = (hhmm: string): Date => new Date(`2026-05-06T${hhmm}:00Z`);

/** A series of the `Requests` metric for one status code category, one total per minute. */
function series(category: string, totals: Record<string, number>): RequestSeries {
  return {
    dimensions: [{ name: 'statusCodeCategory', value: category }],
    points: Object.entries(totals).map(([hhmm, total]) => ({ timeStamp: minute(hhmm), total })),
  };
}

/**
 * What the rule's last three lines do with the rows of its two sources (the host's `AppRequests`
 * and the latest `ingress.requests` event): the larger count of each kind, then the share. The
 * rule's text is held to exactly these lines by test/infra/log-alert-rules.test.ts.
 */
function ruleShare(...sources: ({ requests: number; serverErrors: number } | undefined)[]): number | undefined {
  const present = sources.filter((source) => source !== undefined);
  const requests = Math.max(...present.map((source) => source.requests));
  const serverErrors = Math.max(...present.map((source) => source.serverErrors));
  return requests > 0 ? (100 * serverErrors) / requests : undefined;
}

describe('the ingress request count (made-up metric series)', () => {
  it('covers the 5 whole minutes that end 2 minutes before the current one', () => {
    expect(WINDOW).toEqual({ start: minute('10:00'), end: minute('10:05') });
  });

  it('counts every answer of the window and the 5xx among them, by category or by status code', () => {
    const counts = countIngressRequests(
      [
        series('2xx', { '10:00': 40, '10:01': 40, '10:02': 40, '10:03': 40, '10:04': 40 }),
        series('4xx', { '10:02': 5 }),
        series('5xx', { '10:03': 12, '10:04': 3 }),
        { dimensions: [{ name: 'statusCode', value: '504' }], points: [{ timeStamp: minute('10:04'), total: 2 }] },
        { dimensions: [{ name: 'statusCode', value: '404' }], points: [{ timeStamp: minute('10:04'), total: 7 }] },
      ],
      WINDOW,
    );
    expect(counts).toEqual({ requests: 229, serverErrors: 17, minutesWithData: 5 });
  });

  it('leaves out points outside the window and points without a total', () => {
    const counts = countIngressRequests(
      [
        series('5xx', { '09:59': 100, '10:05': 100 }),
        { dimensions: [{ name: 'statusCodeCategory', value: '2xx' }], points: [{ timeStamp: minute('10:01') }, { timeStamp: minute('10:02'), total: 10 }] },
      ],
      WINDOW,
    );
    expect(counts).toEqual({ requests: 10, serverErrors: 0, minutesWithData: 1 });
  });

  it('tells 5xx series from others', () => {
    expect(isServerErrorSeries(series('5xx', {}))).toBe(true);
    expect(isServerErrorSeries({ dimensions: [{ name: 'StatusCodeCategory', value: '5XX' }], points: [] })).toBe(true);
    expect(isServerErrorSeries({ dimensions: [{ name: 'statusCode', value: '503' }], points: [] })).toBe(true);
    expect(isServerErrorSeries(series('4xx', {}))).toBe(false);
    expect(isServerErrorSeries({ dimensions: [{ name: 'statusCode', value: '50' }], points: [] })).toBe(false);
    expect(isServerErrorSeries({ dimensions: [{ name: 'revisionName', value: '5xx' }], points: [] })).toBe(false);
  });

  it('an outage only the ingress saw makes the rule\'s share exceed the threshold; the host alone would not', () => {
    expect(THRESHOLD).toBe(5);
    // No replica answered for two minutes: the ingress gave 60 × 503, the host saw only its 200 answers.
    const ingress = countIngressRequests(
      [series('2xx', { '10:00': 50, '10:01': 50, '10:02': 50, '10:03': 50, '10:04': 50 }), series('5xx', { '10:03': 30, '10:04': 30 })],
      WINDOW,
    );
    const host = { requests: 250, serverErrors: 0 };
    expect(ruleShare(host)).toBe(0);
    expect(ruleShare(host, ingress)).toBeGreaterThan(THRESHOLD);
    expect(ruleShare(host, ingress)).toBeCloseTo((100 * 60) / 310, 5);
    // The host's own 5xx are in the ingress's count too: they are not counted twice.
    expect(ruleShare({ requests: 250, serverErrors: 10 }, { requests: 250, serverErrors: 10 })).toBe(4);
    // Without an ingress event (the timer failed) the host's answers still count.
    expect(ruleShare({ requests: 100, serverErrors: 6 }, undefined)).toBe(6);
  });
});

describe('recordIngressRequests', () => {
  function setup(source: IngressMetricsSource | undefined) {
    const sink = new LogSink();
    const telemetry = createInMemoryTelemetry();
    const logger = createLogger({ service: 'ingress', level: 'debug', destination: sink });
    const clock = { now: () => NOW };
    return { sink, telemetry, run: () => recordIngressRequests({ source, clock, telemetry, logger }) };
  }

  it('reads the window and sends one ingress.requests event with the counts only', async () => {
    const windows: unknown[] = [];
    const { telemetry, sink, run } = setup({
      async readRequestSeries(window) {
        windows.push(window);
        return [series('2xx', { '10:00': 9 }), series('5xx', { '10:01': 1 })];
      },
    });
    await expect(run()).resolves.toEqual({ requests: 10, serverErrors: 1, minutesWithData: 2 });
    expect(windows).toEqual([WINDOW]);
    expect(telemetry.itemsOf('event', 'ingress.requests').map((item) => item.properties)).toEqual([
      { windowStart: '2026-05-06T10:00:00.000Z', windowEnd: '2026-05-06T10:05:00.000Z', requests: 10, serverErrors: 1, minutesWithData: 2 },
    ]);
    expect(sink.lines.filter((line) => line.message === 'ingress requests counted')).toHaveLength(1);
  });

  it('does nothing but say so at debug level when no container app is configured', async () => {
    const { telemetry, sink, run } = setup(undefined);
    await expect(run()).resolves.toBeUndefined();
    expect(telemetry.items).toEqual([]);
    expect(sink.lines.map((line) => [line.level, line.message])).toEqual([['debug', 'ingress request count not configured (INGRESS_METRICS_RESOURCE_ID is empty)']]);
  });

  it('lets a failed read fail the run (the timer runs again next minute)', async () => {
    const { telemetry, run } = setup({
      readRequestSeries: () => Promise.reject(new Error('403 from the metrics endpoint')),
    });
    await expect(run()).rejects.toThrow('403');
    expect(telemetry.items).toEqual([]);
  });
});

describe('monitorMetricsSource (the real SDK, with a stand-in for the network)', () => {
  const resourceId = '/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-cp-dev/providers/Microsoft.App/containerApps/ca-cp-dev-api';
  const point = (hhmm: string, total: number) => ({ timeStamp: `2026-05-06T${hhmm}:00Z`, total });
  const timeseries = (category: string, ...data: ReturnType<typeof point>[]) => ({
    metadatavalues: [{ name: { value: 'statusCodeCategory', localizedValue: 'statusCodeCategory' }, value: category }],
    data,
  });

  it('asks the metrics batch API for the app\'s Requests per minute by status category, and reads the answer', async () => {
    const requests: { method: string; url: URL; body: unknown }[] = [];
    const httpClient: HttpClient = {
      async sendRequest(request) {
        requests.push({ method: request.method, url: new URL(request.url), body: JSON.parse(String(request.body)) });
        const body = {
          values: [
            {
              starttime: '2026-05-06T10:00:00Z',
              endtime: '2026-05-06T10:05:00Z',
              interval: 'PT1M',
              namespace: 'Microsoft.App/containerApps',
              resourceregion: 'westeurope',
              resourceid: resourceId,
              value: [
                {
                  id: `${resourceId}/providers/Microsoft.Insights/metrics/Requests`,
                  type: 'Microsoft.Insights/metrics',
                  name: { value: 'Requests', localizedValue: 'Requests' },
                  unit: 'Count',
                  errorCode: 'Success',
                  timeseries: [timeseries('2xx', point('10:00', 20), point('10:01', 20)), timeseries('5xx', point('10:01', 4))],
                },
              ],
            },
          ],
        };
        return { request, status: 200, headers: createHttpHeaders({ 'content-type': 'application/json' }), bodyAsText: JSON.stringify(body) };
      },
    };
    const credential = { getToken: async () => ({ token: 'test-token', expiresOnTimestamp: Date.now() + 3_600_000 }) };
    const source = monitorMetricsSource({ resourceId, endpoint: 'https://westeurope.metrics.monitor.azure.com', clientId: undefined }, { httpClient, credential });
    const read = await source.readRequestSeries(WINDOW);

    expect(countIngressRequests(read, WINDOW)).toEqual({ requests: 44, serverErrors: 4, minutesWithData: 2 });
    expect(requests).toHaveLength(1);
    const [sent] = requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.url.origin).toBe('https://westeurope.metrics.monitor.azure.com');
    expect(sent?.url.pathname).toBe('/subscriptions/00000000-0000-0000-0000-000000000001/metrics:getBatch');
    expect(Object.fromEntries(sent?.url.searchParams ?? [])).toMatchObject({
      metricnamespace: 'Microsoft.App/containerApps',
      metricnames: 'Requests',
      interval: 'PT1M',
      aggregation: 'Total',
      filter: "statusCodeCategory eq '*'",
      starttime: '2026-05-06T10:00:00.000Z',
      endtime: '2026-05-06T10:05:00.000Z',
    });
    expect(sent?.body).toEqual({ resourceids: [resourceId] });
  });
});
