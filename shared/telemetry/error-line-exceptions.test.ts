import { describe, expect, it } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import { createLogger, errorFields } from '../logging/logger';
import { errorLineExceptions } from './error-line-exceptions';
import { createInMemoryTelemetry } from './in-memory';

function setup() {
  const bridge = errorLineExceptions();
  const backend = createInMemoryTelemetry();
  const logger = createLogger({ service: 'api', level: 'debug', destination: new LogSink(), onErrorLine: bridge.onErrorLine });
  const telemetry = bridge.attach(backend);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { logger, telemetry, backend, settle };
}

describe('error lines as telemetry exceptions', () => {
  it('makes an error line an exception with its errorCode, stack and short labels only', async () => {
    const { logger, backend, settle } = setup();
    const thrown = new TypeError('boom');
    logger.error(
      { errorCode: 'internal_error', functionName: 'ready', errorType: 'TypeError', stack: thrown.stack, email: 'parent@example.test' },
      'readiness check failed',
    );
    logger.warn({ errorCode: 'slow' }, 'only a warning');
    await settle();
    expect(backend.itemsOf('exception')).toEqual([
      { kind: 'exception', name: 'TypeError', properties: { errorCode: 'internal_error', functionName: 'ready' }, details: { message: 'readiness check failed', stack: thrown.stack } },
    ]);
  });

  it('tracks one exception when the writer tracks its own right after its line', async () => {
    const { logger, telemetry, backend, settle } = setup();
    const failure = new Error('the real one');
    logger.error({ errorCode: 'internal_error', ...errorFields(failure) }, 'request handled');
    telemetry.trackException(failure, { errorCode: 'internal_error', endpoint: 'GET /api/v1/me' });
    await settle();
    expect(backend.itemsOf('exception')).toEqual([expect.objectContaining({ name: 'Error', details: expect.objectContaining({ message: 'the real one' }) })]);
    // The next turn is on its own again.
    logger.error({ errorCode: 'internal_error', ...errorFields(new Error('later')) }, 'clean shutdown failed');
    await settle();
    expect(backend.itemsOf('exception')).toHaveLength(2);
  });

  it('leaves the telemetry backend\'s own error lines alone (tracking them through it could loop)', async () => {
    const { logger, backend, settle } = setup();
    logger.error({ errorCode: 'internal_error', telemetryBackend: 'otlp', ...errorFields(new Error('no exporter')) }, 'telemetry backend failed to load; telemetry goes to the log');
    await settle();
    expect(backend.itemsOf('exception')).toEqual([]);
  });

  it('scrubs a stack as the line is scrubbed', async () => {
    const { logger, backend, settle } = setup();
    const leaky = new Error('no user parent@example.test');
    logger.error({ errorCode: 'internal_error', stack: leaky.stack }, 'lookup failed');
    await settle();
    expect(JSON.stringify(backend.items)).not.toContain('parent@example.test');
  });
});
