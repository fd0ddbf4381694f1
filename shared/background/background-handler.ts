import type { InvocationContext } from '@azure/functions';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { resolveTraceId } from '../logging/trace-context';
import { runWithLogContext } from '../logging/log-context';
import type { Shutdown } from '../lifecycle/shutdown';
import { errorFields, type Logger } from '../logging/logger';
import { BACKGROUND_BUDGET_MS, runWithTimeBudget } from '../resilience/time-budget';
import { parseHostTime } from './host-time';
import type { Telemetry } from '../telemetry/telemetry';

/** host.json `extensions.queues.maxDequeueCount`: the try after which a failing message is poisoned. */
export const MAX_DEQUEUE_COUNT = 5;

/**
 * True when this is a queue message's last try: if it fails, the host moves the message to
 * `<queue>-poison` (its `dequeueCount` has reached host.json's `maxDequeueCount`).
 */
export function isLastAttempt(context: InvocationContext): boolean {
  const dequeueCount = Number(context.triggerMetadata?.dequeueCount);
  return Number.isInteger(dequeueCount) && dequeueCount >= MAX_DEQUEUE_COUNT;
}

export interface BackgroundDeps {
  logger: Logger;
  telemetry: Telemetry;
  /**
   * The process's shutdown: each run is `track`ed, so the stop waits for it (up to the drain
   * point) before it closes the database. A run that starts while stopping still runs: refusing it
   * would only fail a queue message, which then counts towards its poisoning.
   */
  shutdown?: Pick<Shutdown, 'track'>;
}

/**
 * Wraps the handler of a timer or queue function. Every line it writes carries the invocation's
 * trace id (`userId: null`: no one is signed in). A timer the host runs past due is said at warn; a
 * failed queue message's line carries its age (`messageAgeMs`, from the host's `insertionTime`). A failure becomes one error line with
 * `errorCode` and the stack, and an exception in telemetry; then it is thrown again, so the host
 * does what it does with failures: a queue message is retried and finally poisoned, a timer runs
 * again on its next occurrence.
 * @param functionName the registered function name, on the error line.
 * @param deps the ports, or a function giving them: function files pass the process's getter
 *   (`appServices`), so the services are built at the first run at the latest, not at registration.
 * @param options.service the `service` of every line of the invocation (default: each logger's own).
 */
export function backgroundHandler<TTrigger>(
  functionName: string,
  deps: BackgroundDeps | (() => BackgroundDeps),
  work: (trigger: TTrigger, context: InvocationContext) => Promise<void>,
  options: { service?: string } = {},
): (trigger: TTrigger, context: InvocationContext) => Promise<void> {
  return (trigger, context) => {
    const { logger, telemetry, shutdown } = typeof deps === 'function' ? deps() : deps;
    const traceId = resolveTraceId(null, context.traceContext?.traceParent);
    const logContext = { traceId, userId: null, ...(options.service ? { service: options.service } : {}) };
    const run = (): Promise<void> => runWithLogContext(logContext, () => runWithTimeBudget(BACKGROUND_BUDGET_MS, async () => {
      if (isPastDueTimer(trigger)) {
        // The host runs a missed occurrence late (after a restart or a scale-in) with `isPastDue`:
        // the work runs as usual, and the lateness is said, since the run may overlap the next one.
        logger.warn({ functionName, invocationId: context.invocationId, scheduleLast: scheduleLastOf(trigger) }, 'timer run past due');
      }
      try {
        await work(trigger, context);
      } catch (error) {
        const errorCode = errorCodeOf(error);
        const enqueuedAt = parseHostTime(context.triggerMetadata?.insertionTime);
        logger.error(
          {
            functionName,
            invocationId: context.invocationId,
            errorCode,
            ...(enqueuedAt === undefined ? {} : { messageAgeMs: Math.max(0, Date.now() - enqueuedAt) }),
            ...errorFields(error),
          },
          'background function failed',
        );
        telemetry.trackException(error, { errorCode, functionName });
        if (isLastAttempt(context)) {
          // The host moves the message to `<queue>-poison` now; say so in the app's own log too.
          logger.error(
            {
              functionName,
              invocationId: context.invocationId,
              errorCode: 'poison_message',
              dequeueCount: Number(context.triggerMetadata?.dequeueCount),
              ...errorFields(error),
            },
            'message moved to the poison queue',
          );
        }
        throw error;
      }
    }));
    return shutdown ? shutdown.track(run) : run();
  };
}

/** A timer trigger the host marked past due (`Timer.isPastDue`). */
function isPastDueTimer(trigger: unknown): boolean {
  return typeof trigger === 'object' && trigger !== null && (trigger as { isPastDue?: unknown }).isPastDue === true;
}

/** The timer's previous run as an ISO time (whatever offset form the host wrote), else null. */
function scheduleLastOf(trigger: unknown): string | null {
  const last = parseHostTime((trigger as { scheduleStatus?: { last?: unknown } }).scheduleStatus?.last);
  return last === undefined ? null : new Date(last).toISOString();
}

/**
 * The `errorCode` of a failed background run: an error's own code when it carries one (a short
 * snake_case label such as `FanoutError`'s), `service_unavailable` for an unreachable dependency,
 * else `internal_error`.
 */
export function errorCodeOf(error: unknown): string {
  if (error instanceof DependencyUnavailableError) return 'service_unavailable';
  const own = typeof error === 'object' && error !== null ? (error as { errorCode?: unknown }).errorCode : undefined;
  return typeof own === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(own) ? own : 'internal_error';
}
