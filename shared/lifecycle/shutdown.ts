import { shutdownTimings, type ShutdownTimings } from '../settings/shutdown-timings';

/**
 * The process's shutdown, as the code doing slow outbound work sees it: one signal when
 * termination begins (start nothing new) and one at the deadline (abort what is in flight). Built
 * once per process by the composition root; the lifecycle hooks begin it.
 */
export interface ShutdownSignals {
  /** Aborts when termination begins: no new provider call starts after it. */
  readonly stopping: AbortSignal;
  /** Aborts at the shutdown deadline: provider calls still in flight end now. */
  readonly deadline: AbortSignal;
}

/** A point of the schedule (`ShutdownTimings`). */
export type ShutdownPoint = 'deadline' | 'drain' | 'exit';

export interface Shutdown extends ShutdownSignals {
  /**
   * Aborts when the stop stops waiting for work (`closeDown`): what requests need (the database) is
   * being closed, so nothing new may start. Between `stopping` and this, new requests are still
   * served: the platform keeps routing to a terminating replica for a few seconds.
   */
  readonly closing: AbortSignal;
  /**
   * Begins termination: `stopping` aborts now, `deadline` at the schedule's deadline. Called again
   * (a second notice), it only brings the schedule forward when `graceMs` leaves less time.
   * @param reason why (a signal name, `app_terminate`): the abort reason's message.
   * @param graceMs the grace the caller was given from now; default: the configured one.
   * @returns true the first time.
   */
  begin(reason: string, graceMs?: number): boolean;
  /** Milliseconds left until `point` (0 once passed); Infinity before termination began. */
  remainingMs(point: ShutdownPoint): number;
  /** Runs `work`, counted as in flight until it settles, so the shutdown can wait for it. */
  track<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Waits until no tracked work is in flight, at most `maxMs`.
   * @returns true when everything settled in time.
   */
  drained(maxMs: number): Promise<boolean>;
  /** Aborts `closing`: the stop is about to close what tracked work needs. Idempotent. */
  closeDown(): void;
}

/** The abort reason of both signals: what was cut short, and why. */
export class ShutdownError extends Error {
  override readonly name = 'ShutdownError';
}

export interface ShutdownOptions {
  /** The platform's grace period (`SHUTDOWN_GRACE_SECONDS`), from which the schedule is derived. */
  graceMs: number;
  /** Epoch milliseconds; tests pass their own along with fake timers. */
  now?: () => number;
}

/** Creates the process's shutdown; nothing happens until `begin`. */
export function createShutdown(options: ShutdownOptions): Shutdown {
  const now = options.now ?? Date.now;
  const configured = shutdownTimings(options.graceMs);
  const stopping = new AbortController();
  const deadline = new AbortController();
  const closing = new AbortController();
  const at: Record<ShutdownPoint, number> = { deadline: Infinity, drain: Infinity, exit: Infinity };
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<unknown>>();

  const schedule = (timings: ShutdownTimings, reason: string): void => {
    const start = now();
    at.drain = Math.min(at.drain, start + timings.drainMs);
    at.exit = Math.min(at.exit, start + timings.exitMs);
    const deadlineAt = start + timings.deadlineMs;
    if (deadlineAt >= at.deadline) return;
    at.deadline = deadlineAt;
    clearTimeout(timer);
    timer = setTimeout(() => deadline.abort(new ShutdownError(`shutdown deadline passed (${reason})`)), Math.max(0, deadlineAt - now()));
    // The deadline alone must not keep a process alive that has nothing else to do.
    timer.unref();
  };

  return {
    stopping: stopping.signal,
    deadline: deadline.signal,
    closing: closing.signal,
    begin(reason, graceMs) {
      const first = !stopping.signal.aborted;
      // Scheduled before `stopping` aborts, so its listeners already see the deadline.
      schedule(graceMs === undefined ? configured : shutdownTimings(graceMs), reason);
      if (first) stopping.abort(new ShutdownError(`shutting down (${reason})`));
      return first;
    },
    remainingMs(point) {
      return at[point] === Infinity ? Infinity : Math.max(0, at[point] - now());
    },
    track(work) {
      const running = work();
      inFlight.add(running);
      // The caller handles the outcome; this copy only keeps the count.
      running.then(
        () => inFlight.delete(running),
        () => inFlight.delete(running),
      );
      return running;
    },
    async drained(maxMs) {
      let timeout: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => {
        timeout = setTimeout(() => resolve(false), Math.max(0, maxMs));
      });
      try {
        // Work tracked while waiting is waited for too.
        while (inFlight.size > 0) {
          const settled = await Promise.race([Promise.allSettled([...inFlight]).then(() => true), timedOut]);
          if (!settled) return false;
        }
        return true;
      } finally {
        clearTimeout(timeout);
      }
    },
    closeDown() {
      if (!closing.signal.aborted) closing.abort(new ShutdownError('shutting down (closing)'));
    },
  };
}
