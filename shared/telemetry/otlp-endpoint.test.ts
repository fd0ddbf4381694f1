import { describe, expect, it } from 'vitest';
import { otlpSignalUrls } from './otlp-endpoint';

describe('otlpSignalUrls', () => {
  it('appends the signal paths to the base endpoint, keeping its path prefix', () => {
    expect(otlpSignalUrls('http://127.0.0.1:4318')).toEqual({
      logs: 'http://127.0.0.1:4318/v1/logs',
      metrics: 'http://127.0.0.1:4318/v1/metrics',
      traces: 'http://127.0.0.1:4318/v1/traces',
    });
    expect(otlpSignalUrls('https://otel.example.net/otlp/').traces).toBe('https://otel.example.net/otlp/v1/traces');
    expect(otlpSignalUrls(' https://otel.example.net/otlp ').logs).toBe('https://otel.example.net/otlp/v1/logs');
  });

  it('refuses what is not an http(s) base URL, without quoting it', () => {
    for (const endpoint of ['grpc://canary:4317', '/v1/logs', 'https://canary.example/?key=secret', 'https://canary.example/#x']) {
      expect(() => otlpSignalUrls(endpoint)).toThrow(/^OTEL_EXPORTER_OTLP_ENDPOINT must be an http:\/\/ or https:\/\/ URL without a query$/);
    }
  });
});
