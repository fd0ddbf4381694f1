/**
 * The Container Apps ingress's count of the API's answers, for the alert `api-error-rate-critical`
 * (service spec, section 8: "5xx rate above 5% over a 5-minute window"). The Functions host's
 * request telemetry (`AppRequests`) has every answer the host gave; the ingress also answers when
 * no host does (no replica ready, a replica that crashed mid-request, an upstream timeout), and only
 * its `Requests` metric counts those. That metric has the dimensions `revisionName`, `podName`,
 * `statusCodeCategory` and `statusCode`, and no path: the runtime's health probes go to the
 * replica's port directly and never pass the ingress, so they are not in it.
 */

/** The alert's window ("over a 5-minute window"); the ingress count covers as many whole minutes. */
export const INGRESS_WINDOW_MINUTES = 5;

/**
 * Minutes a platform metric may take to be readable: the window ends this long before the current
 * minute, so a minute whose points are still arriving is not counted as a quiet one.
 */
export const METRIC_DELAY_MINUTES = 2;

const MINUTE_MS = 60_000;

/** Whole minutes `[start, end)` of one ingress count. */
export interface IngressWindow {
  start: Date;
  end: Date;
}

/** The 5 whole minutes that end `METRIC_DELAY_MINUTES` before the minute `now` is in. */
export function ingressWindow(now: Date): IngressWindow {
  const end = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS - METRIC_DELAY_MINUTES * MINUTE_MS;
  return { start: new Date(end - INGRESS_WINDOW_MINUTES * MINUTE_MS), end: new Date(end) };
}

/** One time series of the `Requests` metric, split by a status dimension. */
export interface RequestSeries {
  /** The series' dimension values (`statusCodeCategory: 5xx`, or `statusCode: 503`). */
  dimensions: readonly { name?: string; value?: string }[];
  /** Per-minute points; `total` is the number of requests in the minute. */
  points: readonly { timeStamp: Date; total?: number }[];
}

/** What the `ingress.requests` event reports about one window. */
export interface IngressRequestCounts {
  /** Every answer the ingress gave in the window (the host's included). */
  requests: number;
  /** Those with a 5xx status. */
  serverErrors: number;
  /** Minutes of the window with at least one point; fewer than 5 means the metric lags or the app was idle. */
  minutesWithData: number;
}

/** Whether a series is of 5xx answers: by `statusCodeCategory` (`5xx`) or by `statusCode` (`5nn`). */
export function isServerErrorSeries(series: RequestSeries): boolean {
  return series.dimensions.some((dimension) => {
    const name = (dimension.name ?? '').toLowerCase();
    const value = (dimension.value ?? '').trim().toLowerCase();
    if (name === 'statuscodecategory') return value === '5xx';
    if (name === 'statuscode') return /^5\d\d$/.test(value);
    return false;
  });
}

/**
 * Adds up the ingress's answers inside the window, and the 5xx among them. Points outside it (the
 * API may return a minute more on either side) and points without a total are left out.
 */
export function countIngressRequests(series: readonly RequestSeries[], window: IngressWindow): IngressRequestCounts {
  const start = window.start.getTime();
  const end = window.end.getTime();
  let requests = 0;
  let serverErrors = 0;
  const minutes = new Set<number>();
  for (const one of series) {
    const serverError = isServerErrorSeries(one);
    for (const point of one.points) {
      const time = point.timeStamp.getTime();
      const total = point.total;
      if (!(time >= start && time < end) || total === undefined || !Number.isFinite(total) || total < 0) continue;
      requests += total;
      if (serverError) serverErrors += total;
      if (total > 0) minutes.add(time);
    }
  }
  return { requests, serverErrors, minutesWithData: minutes.size };
}
