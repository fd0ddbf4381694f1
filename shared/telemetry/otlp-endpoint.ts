/**
 * Where the OTLP/HTTP backend posts each signal. Kept apart from `otlp.ts` so that the facade can
 * refuse a bad endpoint at start-up without loading the OpenTelemetry packages.
 */

export interface OtlpSignalUrls {
  logs: string;
  metrics: string;
  traces: string;
}

/**
 * The per-signal URLs below `OTEL_EXPORTER_OTLP_ENDPOINT`, as the OTLP exporter specification
 * builds them from the base endpoint: `v1/logs`, `v1/metrics` and `v1/traces` appended to its path
 * (`http://collector:4318` → `http://collector:4318/v1/logs`; a path prefix is kept).
 * @throws Error when the endpoint is not an http(s) URL (bad configuration; the value is not echoed).
 */
export function otlpSignalUrls(endpoint: string): OtlpSignalUrls {
  assertOtlpEndpoint(endpoint);
  const base = endpoint.trim().endsWith('/') ? endpoint.trim() : `${endpoint.trim()}/`;
  return { logs: `${base}v1/logs`, metrics: `${base}v1/metrics`, traces: `${base}v1/traces` };
}

/**
 * Throws unless `endpoint` is an absolute http:// or https:// URL without a query or fragment
 * (the signal paths are appended to it). The message names the setting, never its value: the URL
 * may carry credentials.
 * @throws Error for an unusable endpoint (bad configuration).
 */
export function assertOtlpEndpoint(endpoint: string): void {
  const url = URL.parse(endpoint.trim());
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    throw new Error('OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL without a query');
  }
}
