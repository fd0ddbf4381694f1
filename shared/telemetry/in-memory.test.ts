import { describe, expect, it } from 'vitest';
import { createInMemoryTelemetry } from './in-memory';


/** The catalogue keeps callers to its names; these tests feed the backend what a careless caller could. */
type UntypedTelemetry = { trackEvent(name: string, properties?: Record<string, unknown>): void };
const untyped = (telemetry: unknown): UntypedTelemetry => telemetry as UntypedTelemetry;

describe('in-memory telemetry', () => {
  it('records every item with its kind, name, properties and value', async () => {
    const telemetry = createInMemoryTelemetry();
    telemetry.trackEvent('notification.delivery', { channel: 'push', result: 'sent' });
    telemetry.trackMetric('approval.queue_depth', 5, { queue: 'approvals' });
    telemetry.trackException(new TypeError('bad input'), { endpoint: 'GET /api/v1/me' });
    telemetry.trackDependency({ name: 'sqlite ping', dependencyType: 'SQL', target: 'platform.sqlite', durationMs: 2, success: true });
    await telemetry.flush();

    expect(telemetry.items).toEqual([
      { kind: 'event', name: 'notification.delivery', properties: { channel: 'push', result: 'sent' } },
      { kind: 'metric', name: 'approval.queue_depth', value: 5, properties: { queue: 'approvals' } },
      {
        kind: 'exception',
        name: 'TypeError',
        properties: { endpoint: 'GET /api/v1/me' },
        details: { message: 'bad input', stack: expect.stringContaining('TypeError: bad input') },
      },
      {
        kind: 'dependency',
        name: 'sqlite ping',
        value: 2,
        properties: {},
        details: { dependencyType: 'SQL', target: 'platform.sqlite', success: true, resultCode: undefined },
      },
    ]);
    expect(telemetry.flushCount).toBe(1);
    expect(telemetry.itemsOf('event', 'notification.delivery')).toHaveLength(1);
    expect(telemetry.itemsOf('event', 'other')).toEqual([]);
  });

  it('copies properties, so later changes by the caller do not rewrite history', () => {
    const telemetry = createInMemoryTelemetry();
    const properties = { channel: 'sms', result: 'sent' };
    telemetry.trackEvent('notification.delivery', properties);
    properties.result = 'changed';
    expect(telemetry.items[0]?.properties).toEqual({ channel: 'sms', result: 'sent' });
  });

  it('finds canaries anywhere, unscrubbed, including in exception messages and stacks', () => {
    const telemetry = createInMemoryTelemetry();
    untyped(telemetry).trackEvent('auth.token-rejected', { reason: 'expired' });
    expect(telemetry.findCanaries(['canary-token-123', 'canary@example.org'])).toEqual([]);

    telemetry.trackException(new Error('user canary@example.org not found'));
    untyped(telemetry).trackEvent('auth.token-rejected', { header: 'Bearer canary-token-123' });
    telemetry.trackException('thrown "quoted" canary-string');
    expect(telemetry.findCanaries(['canary-token-123', 'canary@example.org', 'never-sent', '"quoted" canary-string'])).toEqual([
      'canary-token-123',
      'canary@example.org',
      '"quoted" canary-string',
    ]);
    expect(telemetry.serialized()).toContain('canary-token-123');
  });

  it('forgets everything on clear()', async () => {
    const telemetry = createInMemoryTelemetry();
    telemetry.trackEvent('auth.success', { accountType: 'adult' });
    await telemetry.flush();
    telemetry.clear();
    expect(telemetry.items).toEqual([]);
    expect(telemetry.flushCount).toBe(0);
  });
});
