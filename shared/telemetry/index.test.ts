import { describe, expect, it } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import { createLogger } from '../logging/logger';
import { createTelemetry, telemetryBackendFor } from './index';

function logger() {
  const sink = new LogSink();
  return { sink, logger: createLogger({ service: 'api', level: 'info', destination: sink }) };
}

describe('createTelemetry', () => {
  it('picks Application Insights only when a connection string is given', () => {
    expect(telemetryBackendFor({ connectionString: 'InstrumentationKey=00000000-0000-0000-0000-000000000000' })).toBe(
      'application-insights',
    );
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
});
