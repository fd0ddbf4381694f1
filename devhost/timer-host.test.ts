import type { InvocationContext, Timer } from '@azure/functions';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseLogLine } from '../test/helpers/log-schema';
import { createFunctionsCore, type FunctionRegistration } from './functions-core-shim';
import { createHookRunner } from './invocation';
import { startTimers } from './timer-host';
import { captureHostLogs } from './test-fixtures/host-log-capture';

const { logger, lines, allLines } = captureHostLogs();

interface Run {
  at: string;
  timer: Timer;
  context: InvocationContext;
}

function timer(name: string, schedule: string, runOnStartup: boolean, runs: Run[], fail = false): FunctionRegistration {
  return {
    metadata: { name, bindings: { timerTrigger1: { type: 'timerTrigger', direction: 'in', schedule, runOnStartup } } },
    handler: (input: unknown, context: unknown) => {
      runs.push({ at: new Date().toISOString(), timer: input as Timer, context: context as InvocationContext });
      if (fail) throw new Error('timer failed');
    },
  };
}

const hooks = createHookRunner(createFunctionsCore(), process.cwd());

beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2024-01-01T00:00:00.000Z') });
  lines.length = 0;
});

afterEach(() => {
  vi.useRealTimers();
});

describe('startTimers', () => {
  it('runs on startup when asked, then every interval, with the schedule status', async () => {
    const runs: Run[] = [];
    const host = startTimers({ registrations: [timer('every-10s', '00:00:10', true, runs)], hooks, logger, settings: {} });
    await vi.advanceTimersByTimeAsync(0);
    expect(runs.map((run) => run.at)).toEqual(['2024-01-01T00:00:00.000Z']);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(runs.map((run) => run.at)).toEqual(['2024-01-01T00:00:00.000Z', '2024-01-01T00:00:10.000Z', '2024-01-01T00:00:20.000Z']);
    expect(runs[1]?.timer).toEqual({
      isPastDue: false,
      schedule: { adjustForDST: true },
      scheduleStatus: { last: '2024-01-01T00:00:00.000Z', next: '2024-01-01T00:00:20.000Z', lastUpdated: '2024-01-01T00:00:10.000Z' },
    });
    expect(runs[0]?.timer.scheduleStatus.last).toBe('0001-01-01T00:00:00.000Z');
    await host.stop();
  });

  it('runs an NCRONTAB schedule at its occurrences only, each run with a fresh trace context', async () => {
    const runs: Run[] = [];
    const host = startTimers({ registrations: [timer('every-5m', '0 */5 * * * *', false, runs)], hooks, logger, settings: {} });
    await vi.advanceTimersByTimeAsync(299_999);
    expect(runs).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(300_001);
    expect(runs.map((run) => run.at)).toEqual(['2024-01-01T00:05:00.000Z', '2024-01-01T00:10:00.000Z']);
    const [first, second] = runs.map((run) => run.context.traceContext?.traceParent);
    expect(first).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(first?.slice(3, 35)).not.toBe(second?.slice(3, 35));
    expect(runs[0]?.context.functionName).toBe('every-5m');
    await host.stop();
  });

  it('keeps its schedule after a failing run, logging the failure', async () => {
    const runs: Run[] = [];
    const host = startTimers({ registrations: [timer('flaky', '00:01:00', false, runs, true)], hooks, logger, settings: {} });
    await vi.advanceTimersByTimeAsync(120_000);
    expect(runs).toHaveLength(2);
    const errors = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.level === 'error');
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ functionName: 'flaky', message: 'function failed', errorType: 'Error' });
    await host.stop();
  });

  it('resolves %setting% schedules and skips a bad schedule with an error line', async () => {
    const runs: Run[] = [];
    const host = startTimers({
      registrations: [timer('from-setting', '%SAMPLE_SCHEDULE%', false, runs), timer('broken', '0 99 * * * *', false, runs)],
      hooks,
      logger,
      settings: { SAMPLE_SCHEDULE: '00:00:05' },
    });
    expect(host.count).toBe(1);
    expect(lines.join('\n')).toContain('timer function not started: bad schedule');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(runs).toHaveLength(1);
    await host.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(runs).toHaveLength(1);
  });
});

describe('log lines', () => {
  it('all fit the log-line schema (error lines with errorCode and stack)', () => {
    expect(allLines.length).toBeGreaterThan(0);
    for (const line of allLines) expect(() => parseLogLine(line)).not.toThrow();
  });
});
