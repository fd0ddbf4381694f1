import { InvocationContext, type Timer } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import { createLogger } from '../logging/logger';
import { createInMemoryTelemetry } from '../telemetry/in-memory';
import { backgroundHandler } from './background-handler';

/**
 * Trigger data as the Functions host sends it, not only as the local host does.
 * The host's timer binding sets `IsPastDue` when it runs an occurrence missed while no instance ran
 * (the schedule monitor), and the queue binding writes .NET `DateTimeOffset`s (`+00:00`, up to seven
 * fraction digits) where the local host writes JavaScript's `Z`.
 */
function setup() {
  const sink = new LogSink();
  const logger = createLogger({ service: 'api', level: 'info', destination: sink });
  return { sink, deps: { logger, telemetry: createInMemoryTelemetry() } };
}

const timer = (isPastDue: boolean, last: string): Timer => ({
  isPastDue,
  schedule: { adjustForDST: true },
  scheduleStatus: { last, next: '2024-05-01T12:00:00+00:00', lastUpdated: '2024-05-01T11:00:00+00:00' },
});

describe('a timer run', () => {
  it('past due: runs the work and says so once at warn, with the previous run in UTC', async () => {
    const { sink, deps } = setup();
    let ran = 0;
    const handler = backgroundHandler<Timer>('sweep', deps, async () => void (ran += 1));
    await handler(timer(true, '2024-05-01T13:00:00+02:00'), new InvocationContext({ invocationId: 'i-1', functionName: 'sweep' }));
    expect(ran).toBe(1);
    const lines = sink.withMessage('timer run past due');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', functionName: 'sweep', invocationId: 'i-1', scheduleLast: '2024-05-01T11:00:00.000Z' });
  });

  it('on time: no warn line', async () => {
    const { sink, deps } = setup();
    await backgroundHandler<Timer>('sweep', deps, async () => undefined)(timer(false, '2024-05-01T11:00:00Z'), new InvocationContext({ functionName: 'sweep' }));
    expect(sink.withMessage('timer run past due')).toEqual([]);
  });
});

describe('a failed queue message', () => {
  for (const insertionTime of ['2024-05-01T11:00:00+00:00', '2024-05-01T11:00:00.0000000+00:00', '2024-05-01T11:00:00.000Z']) {
    it(`carries its age, from insertionTime ${insertionTime}`, async () => {
      const { sink, deps } = setup();
      const context = new InvocationContext({ functionName: 'fanout', triggerMetadata: { insertionTime, dequeueCount: 1 } });
      const before = Date.now();
      await expect(
        backgroundHandler('fanout', deps, async () => {
          throw new Error('provider down');
        })({}, context),
      ).rejects.toThrow('provider down');
      const age = sink.withMessage('background function failed')[0]?.messageAgeMs as number;
      expect(age).toBeGreaterThanOrEqual(before - Date.UTC(2024, 4, 1, 11));
      expect(age).toBeLessThanOrEqual(Date.now() - Date.UTC(2024, 4, 1, 11));
    });
  }
});
