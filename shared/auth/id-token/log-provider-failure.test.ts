import { describe, expect, it } from 'vitest';
import { LogSink } from '../../../test/helpers/log-sink';
import { createLogger } from '../../logging/logger';
import { createInMemoryTelemetry } from '../../telemetry/in-memory';
import { logProviderFailure } from './log-provider-failure';
import { IdpUnavailableError } from './provider-failure';

describe('logProviderFailure', () => {
  it('writes one error line with the status, an idp.unavailable event and an exception', () => {
    const sink = new LogSink();
    const telemetry = createInMemoryTelemetry();
    const report = logProviderFailure(createLogger({ service: 'api', level: 'info', destination: sink }), telemetry);
    const cause = new IdpUnavailableError('500', { cause: new Error('JWKS endpoint answered HTTP 500') });

    report({ providerStatus: '500', cause, staleKeysAvailable: true });

    expect(sink.lines).toHaveLength(1);
    expect(sink.lines[0]).toMatchObject({
      level: 'error',
      errorCode: 'idp_unavailable',
      providerStatus: '500',
      staleKeysAvailable: true,
      errorType: 'IdpUnavailableError',
    });
    expect(String(sink.lines[0]?.stack)).toContain('HTTP 500');
    expect(telemetry.itemsOf('event', 'idp.unavailable')).toEqual([
      { kind: 'event', name: 'idp.unavailable', properties: { status: '500', staleKeysAvailable: true } },
    ]);
    expect(telemetry.itemsOf('exception')).toHaveLength(1);
  });
});
