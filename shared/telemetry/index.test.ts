import { describe, expect, it } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import { createLogger } from '../logging/logger';
import { createInMemoryTelemetry } from './in-memory';
import { createTelemetry, telemetryBackendFor } from './index';
import type { RemoteBackendSettings } from './load-backend';

function logger() {
  const sink = new LogSink();
  return { sink, logger: createLogger({ service: 'api', level: 'info', destination: sink }) };
}

describe('createTelemetry', () => {
  it('picks OTLP when an endpoint is given, else Application Insights when a connection string is, else the log', () => {
    const connectionString = 'InstrumentationKey=00000000-0000-0000-0000-000000000000';
    expect(telemetryBackendFor({ connectionString })).toBe('application-insights');
    expect(telemetryBackendFor({ otlp: { endpoint: 'http://127.0.0.1:4318' } })).toBe('otlp');
    expect(telemetryBackendFor({ connectionString, otlp: { endpoint: 'http://127.0.0.1:4318' } })).toBe('otlp');
    expect(telemetryBackendFor({ connectionString, otlp: { endpoint: '  ' } })).toBe('application-insights');
    expect(telemetryBackendFor({})).toBe('log-only');
    expect(telemetryBackendFor({ connectionString: '' })).toBe('log-only');
    expect(telemetryBackendFor({ connectionString: '   ' })).toBe('log-only');
  });

  it('without a connection string, sends telemetry to the log and says so', () => {
    const { sink, logger: log } = logger();
    const telemetry = createTelemetry({ logger: log, serviceName: 'api' });
    telemetry.trackEvent('notification.delivery', { channel: 'push', result: 'sent' });
    expect(sink.lines).toEqual([
      expect.objectContaining({ message: 'telemetry ready', telemetryBackend: 'log-only' }),
      expect.objectContaining({ message: 'telemetry event', event: 'notification.delivery' }),
    ]);
  });

  it('refuses a connection string without a valid instrumentation key, without echoing it', () => {
    const { sink, logger: log } = logger();
    const connectionString = 'IngestionEndpoint=https://canary-endpoint.example/;InstrumentationKey=not-a-guid';
    let thrown: unknown;
    try {
      createTelemetry({ connectionString, logger: log, serviceName: 'api' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toMatch(/APPLICATIONINSIGHTS_CONNECTION_STRING/);
    expect((thrown as Error).message).not.toContain('canary-endpoint');
    expect(sink.raw).toEqual([]);
  });

  it('refuses an OTLP endpoint that is not an http(s) URL, without echoing it', () => {
    const { sink, logger: log } = logger();
    for (const endpoint of ['ftp://canary-user:canary-pass@collector.example', 'not a url', 'http://collector.example/?token=canary']) {
      expect(() => createTelemetry({ otlp: { endpoint }, logger: log, serviceName: 'api' })).toThrow(
        /^OTEL_EXPORTER_OTLP_ENDPOINT must be an http:\/\/ or https:\/\/ URL/,
      );
    }
    expect(sink.raw).toEqual([]);
  });

  it('returns at once and loads the chosen backend later, with its settings, saying ready only then', async () => {
    const { sink, logger: log } = logger();
    const loaded: RemoteBackendSettings[] = [];
    const backend = createInMemoryTelemetry();
    const telemetry = createTelemetry({
      connectionString: 'InstrumentationKey=00000000-0000-0000-0000-000000000000',
      otlp: { endpoint: ' http://127.0.0.1:4318 ', serviceName: 'platform-api' },
      logger: log,
      serviceName: 'api',
      loadBackend: (settings) => {
        loaded.push(settings);
        return Promise.resolve(backend);
      },
    });
    telemetry.trackEvent('auth.success', { accountType: 'adult' });
    expect(loaded).toEqual([]);
    expect(sink.withMessage('telemetry ready')).toEqual([]);
    // Both configured: said once, without either value.
    expect(sink.lines).toEqual([
      expect.objectContaining({ level: 'warn', telemetryBackend: 'otlp', ignoredSetting: 'APPLICATIONINSIGHTS_CONNECTION_STRING' }),
    ]);

    await telemetry.flush();
    expect(loaded).toEqual([
      expect.objectContaining({ backend: 'otlp', endpoint: 'http://127.0.0.1:4318', serviceName: 'api', resourceServiceName: 'platform-api' }),
    ]);
    expect(backend.items).toEqual([expect.objectContaining({ kind: 'event', name: 'auth.success' })]);
    expect(backend.flushCount).toBe(1);
    expect(sink.withMessage('telemetry ready')).toEqual([expect.objectContaining({ telemetryBackend: 'otlp' })]);
    expect(sink.text).not.toContain('4318');
    expect(sink.text).not.toContain('InstrumentationKey');
  });

  it('hands Application Insights its trimmed connection string and the service name', async () => {
    const { logger: log } = logger();
    const loaded: RemoteBackendSettings[] = [];
    const telemetry = createTelemetry({
      connectionString: ' InstrumentationKey=00000000-0000-0000-0000-000000000000 ',
      logger: log,
      serviceName: 'api',
      loadBackend: (settings) => {
        loaded.push(settings);
        return Promise.resolve(createInMemoryTelemetry());
      },
    });
    await telemetry.flush();
    expect(loaded).toEqual([
      expect.objectContaining({
        backend: 'application-insights',
        connectionString: 'InstrumentationKey=00000000-0000-0000-0000-000000000000',
        serviceName: 'api',
      }),
    ]);
  });

  it('keeps a failing backend from quoting any part of the connection string in its error line', async () => {
    const { sink, logger: log } = logger();
    const connectionString = 'InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://canary-region.in.example/';
    const telemetry = createTelemetry({
      connectionString,
      logger: log,
      serviceName: 'api',
      loadBackend: () => Promise.reject(new Error('refused https://canary-region.in.example/ for key 00000000-0000-0000-0000-000000000000')),
    });
    await telemetry.flush();
    expect(sink.withMessage('telemetry backend failed to load; telemetry goes to the log')).toHaveLength(1);
    expect(sink.text).not.toContain('canary-region');
    expect(sink.text).not.toContain('00000000-0000-0000-0000-000000000000');
    expect(sink.withMessage('telemetry ready')).toEqual([expect.objectContaining({ telemetryBackend: 'log-only' })]);
  });
});
