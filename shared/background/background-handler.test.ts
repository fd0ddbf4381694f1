import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InvocationContext } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { createShutdown } from '../lifecycle/shutdown';
import { currentLogContext } from '../logging/log-context';
import { createLogger } from '../logging/logger';
import { createInMemoryTelemetry } from '../telemetry/in-memory';
import { backgroundHandler, MAX_DEQUEUE_COUNT } from './background-handler';

function setup() {
  const sink = new LogSink();
  const logger = createLogger({ service: 'api', level: 'info', destination: sink });
  const telemetry = createInMemoryTelemetry();
  return { sink, deps: { logger, telemetry }, telemetry };
}

const context = (traceParent?: string) =>
  new InvocationContext({
    invocationId: '6a1b3c5d-0000-4000-8000-00000000000a',
    functionName: 'work',
    ...(traceParent ? { traceContext: { traceParent, traceState: '', attributes: {} } } : {}),
  });

describe('backgroundHandler', () => {
  it('runs the work in a log context with the invocation’s trace id and no user', async () => {
    const { sink, deps } = setup();
    const seen: unknown[] = [];
    await backgroundHandler<string>('work', deps, async (trigger) => {
      seen.push(trigger, { ...currentLogContext() });
      deps.logger.info('inside');
    })('payload', context('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'));
    expect(seen).toEqual(['payload', { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', userId: null }]);
    expect(sink.withMessage('inside')[0]).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', userId: null });
  });

  it('makes a new trace id when the invocation has none', async () => {
    const { deps } = setup();
    let traceId = '';
    await backgroundHandler('work', deps, async () => {
      traceId = currentLogContext().traceId;
    })(undefined, context());
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('logs an unreachable dependency as service_unavailable, tracks it and rethrows the same error', async () => {
    const { sink, deps, telemetry } = setup();
    const failure = new DependencyUnavailableError('queue', { cause: new Error('ECONNREFUSED') });
    await expect(
      backgroundHandler('work', deps, async () => {
        throw failure;
      })(undefined, context()),
    ).rejects.toBe(failure);
    expect(sink.withMessage('background function failed')[0]).toMatchObject({
      level: 'error',
      errorCode: 'service_unavailable',
      functionName: 'work',
      invocationId: '6a1b3c5d-0000-4000-8000-00000000000a',
      stack: expect.stringContaining('ECONNREFUSED'),
    });
    expect(telemetry.itemsOf('exception')).toHaveLength(1);
  });
});

describe('the last try of a queue message', () => {
  it('matches host.json and logs the move to the poison queue', async () => {
    const hostJson = JSON.parse(readFileSync(path.resolve(__dirname, '../../host.json'), 'utf8')) as {
      extensions: { queues: { maxDequeueCount: number } };
    };
    expect(MAX_DEQUEUE_COUNT).toBe(hostJson.extensions.queues.maxDequeueCount);
    const sink = new LogSink();
    const logger = createLogger({ service: 'notifications', level: 'info', destination: sink });
    const telemetry = createInMemoryTelemetry();
    const handler = backgroundHandler<unknown>('notification-fanout', { logger, telemetry }, async () => {
      throw new Error('still failing');
    });
    for (const dequeueCount of [4, 5]) {
      const context = new InvocationContext({ invocationId: `try-${dequeueCount}`, functionName: 'notification-fanout', triggerMetadata: { dequeueCount } });
      await expect(handler({}, context)).rejects.toThrow('still failing');
    }
    const poison = sink.withMessage('message moved to the poison queue');
    expect(poison).toHaveLength(1);
    expect(poison[0]).toMatchObject({ level: 'error', errorCode: 'poison_message', dequeueCount: 5 });
  });
});

describe('backgroundHandler and the shutdown', () => {
  it('runs each invocation tracked, so the stop waits for it before closing the database', async () => {
    const { deps } = setup();
    const shutdown = createShutdown({ graceMs: 30_000 });
    let release: () => void = () => undefined;
    const run = backgroundHandler('work', { ...deps, shutdown }, async () => {
      await new Promise<void>((resolve) => (release = resolve));
    })(undefined, context());
    shutdown.begin('SIGTERM');
    expect(await shutdown.drained(50)).toBe(false);
    release();
    await run;
    expect(await shutdown.drained(1_000)).toBe(true);
  });
});
