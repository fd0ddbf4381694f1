import { randomUUID } from 'node:crypto';
import type { Timer } from '@azure/functions';
import { errorFields, type Logger } from '../shared/logging/logger';
import { resolveSettingExpressions, type AppSettings } from './app-settings';
import type { FunctionRegistration } from './functions-core-shim';
import { createInvocationContext, triggerOf, type HookRunner } from './invocation';
import { invocationTraceContext } from './invocation-trace';
import { nextOccurrence, parseSchedule, type Schedule } from './schedule';

/** `setTimeout` cannot wait longer than this; longer waits re-arm. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** What the real host reports as `last` before a timer has ever run (.NET's DateTime.MinValue). */
const NEVER = '0001-01-01T00:00:00.000Z';

export interface TimerHostOptions {
  registrations: readonly FunctionRegistration[];
  hooks: HookRunner;
  logger: Logger;
  settings: AppSettings;
  /** Injected for tests; the wall clock otherwise. */
  now?: () => number;
}

export interface TimerHost {
  /** How many timers are scheduled. */
  count: number;
  /** Cancels future runs and waits for runs in progress. */
  stop(): Promise<void>;
}

/**
 * Runs every `timerTrigger` function on its schedule. Runs of one timer never overlap: the next
 * occurrence is computed when a run ends, as the real host does for its singleton timers.
 */
export function startTimers(options: TimerHostOptions): TimerHost {
  const now = options.now ?? Date.now;
  const timers: { stop(): Promise<void> }[] = [];
  for (const registration of options.registrations) {
    const trigger = triggerOf(registration.metadata);
    if (trigger?.type.toLowerCase() !== 'timertrigger') continue;
    const functionName = registration.metadata.name;
    let schedule: Schedule;
    try {
      schedule = parseSchedule(resolveSettingExpressions(String(trigger.schedule ?? ''), options.settings));
    } catch (error) {
      options.logger.error({ functionName, errorCode: 'configuration_error', ...errorFields(error) }, 'timer function not started: bad schedule');
      continue;
    }
    timers.push(scheduleTimer(registration, schedule, trigger.runOnStartup === true, options, now));
  }
  return { count: timers.length, stop: async () => void (await Promise.all(timers.map((timer) => timer.stop()))) };
}

function scheduleTimer(
  registration: FunctionRegistration,
  schedule: Schedule,
  runOnStartup: boolean,
  options: TimerHostOptions,
  now: () => number,
): { stop(): Promise<void> } {
  let handle: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let lastRun: string = NEVER;

  const run = async (occurrence: Date): Promise<void> => {
    const next = nextOccurrence(schedule, new Date(Math.max(now(), occurrence.getTime())));
    const timer: Timer = {
      isPastDue: false,
      schedule: { adjustForDST: true },
      scheduleStatus: { last: lastRun, next: next.toISOString(), lastUpdated: new Date(now()).toISOString() },
    };
    lastRun = occurrence.toISOString();
    const invocationId = randomUUID();
    const context = createInvocationContext({ registration, invocationId, traceContext: invocationTraceContext(), logger: options.logger });
    try {
      await options.hooks.invoke(registration.handler, context, [timer]);
    } catch (error) {
      options.logger.error(
        { functionName: registration.metadata.name, invocationId, errorCode: 'internal_error', ...errorFields(error) },
        'function failed',
      );
    }
  };

  const arm = (after: Date): void => {
    if (stopped) return;
    const due = nextOccurrence(schedule, after);
    const wait = (): void => {
      const remaining = due.getTime() - now();
      handle = setTimeout(
        () => {
          if (remaining > MAX_TIMEOUT_MS) return wait();
          running = run(due).then(() => arm(new Date(Math.max(now(), due.getTime()))));
        },
        Math.min(Math.max(remaining, 0), MAX_TIMEOUT_MS),
      );
    };
    wait();
  };

  const startedAt = new Date(now());
  if (runOnStartup) running = run(startedAt).then(() => arm(new Date(Math.max(now(), startedAt.getTime()))));
  else arm(startedAt);

  return {
    stop: async () => {
      stopped = true;
      clearTimeout(handle);
      await running;
    },
  };
}
