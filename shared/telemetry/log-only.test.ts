import { describe, expect, it } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import { runWithLogContext } from '../logging/log-context';
import { createLogger } from '../logging/logger';
import { REDACTION_MARKER } from '../logging/scrub';
import { createLogOnlyTelemetry } from './log-only';

const CANARY_JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJsb2ctb25seSJ9.bG9nLW9ubHktc2ln';

function capture(level: 'debug' | 'info') {
  const sink = new LogSink();
  const telemetry = createLogOnlyTelemetry({ logger: createLogger({ service: 'api', level, destination: sink }) });
  return { sink, telemetry };
}


/** The catalogue keeps callers to its names; these tests feed the backend what a careless caller could. */
type UntypedTelemetry = { trackEvent(name: string, properties?: Record<string, unknown>): void };
const untyped = (telemetry: unknown): UntypedTelemetry => telemetry as UntypedTelemetry;

describe('log-only telemetry', () => {
  it('writes an event as an info line with its name and scrubbed properties, in the request trace', () => {
    const { sink, telemetry } = capture('info');
    runWithLogContext({ traceId: 'b'.repeat(32), userId: 'user-7' }, () =>
      untyped(telemetry).trackEvent('notification.delivery', { channel: 'push', result: 'sent', token: `Bearer ${CANARY_JWT}` }),
    );
    expect(sink.lines).toEqual([
      expect.objectContaining({
        level: 'info',
        message: 'telemetry event',
        event: 'notification.delivery',
        traceId: 'b'.repeat(32),
        userId: 'user-7',
        properties: { channel: 'push', result: 'sent', token: REDACTION_MARKER },
      }),
    ]);
    expect(sink.text).not.toContain(CANARY_JWT);
  });

  it('keeps properties from overwriting the line fields', () => {
    const { sink, telemetry } = capture('info');
    untyped(telemetry).trackEvent('approval.queue_depth', { traceId: 'f'.repeat(32), message: 'spoofed', level: 'error' });
    const [line] = sink.lines;
    expect(line).toMatchObject({ level: 'info', message: 'telemetry event' });
    expect(line?.traceId).not.toBe('f'.repeat(32));
  });

  it('writes metrics and dependency calls at debug only', () => {
    const quiet = capture('info');
    quiet.telemetry.trackMetric('approval.queue_depth', 4);
    quiet.telemetry.trackDependency({ name: 'GET jwks', dependencyType: 'HTTP', target: 'idp.example', durationMs: 3, success: true });
    expect(quiet.sink.raw).toEqual([]);

    const verbose = capture('debug');
    verbose.telemetry.trackMetric('approval.queue_depth', 4, { queue: 'approvals' });
    verbose.telemetry.trackDependency({
      name: 'GET jwks',
      dependencyType: 'HTTP',
      target: 'idp.example',
      durationMs: 12.6,
      success: false,
      resultCode: 503,
    });
    expect(verbose.sink.lines).toEqual([
      expect.objectContaining({
        level: 'debug',
        message: 'telemetry metric',
        metric: 'approval.queue_depth',
        value: 4,
        properties: { queue: 'approvals' },
      }),
      expect.objectContaining({
        level: 'debug',
        message: 'telemetry dependency',
        dependency: 'GET jwks',
        dependencyType: 'HTTP',
        target: 'idp.example',
        durationMs: 13,
        success: false,
        resultCode: 503,
      }),
    ]);
  });

  it('does not log exceptions again: the caller wrote the error line already', async () => {
    const { sink, telemetry } = capture('debug');
    telemetry.trackException(new Error('database unavailable'), { endpoint: 'POST /api/v1/auth/session' });
    await expect(telemetry.flush()).resolves.toBeUndefined();
    expect(sink.raw).toEqual([]);
  });
});
