import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

/**
 * What every log line of one request chain shares. The HTTP pipeline (and the timer and queue
 * wrappers) run their handler inside `runWithLogContext`; the logger's mixin reads it, so a line
 * written anywhere below carries the right `traceId` and `userId` without threading them through.
 */
export interface LogContext {
  traceId: string;
  /** Null until the request is authenticated; set by the authentication step. */
  userId: string | null;
  /** The HTTP request's id and endpoint (method and route template), on every line written while serving it. */
  requestId?: string;
  endpoint?: string;
  /**
   * The `service` of every line of this chain, whichever logger writes it: the fan-out's queue and
   * report functions run as `notifications` (contract section 3), database and telemetry lines
   * included, though those share the process's `api` logger.
   */
  service?: string;
}

// Made by the first request chain: a cold start registers every function before any runs.
let storage: AsyncLocalStorage<LogContext> | undefined;

/** Lines written outside any request (start-up, shutdown) share one trace id per process. */
const processContext: LogContext = { traceId: newTraceId(), userId: null };

/** A W3C trace id: 16 random bytes as 32 lowercase hex digits. */
export function newTraceId(): string {
  return randomBytes(16).toString('hex');
}

/** Runs `work` with `context` as the log context of everything it awaits. */
export function runWithLogContext<T>(context: LogContext, work: () => T): T {
  storage ??= new AsyncLocalStorage<LogContext>();
  return storage.run(context, work);
}

/** The log context of the running request chain, or the process's own outside one. */
export function currentLogContext(): LogContext {
  return storage?.getStore() ?? processContext;
}

/**
 * Marks the running request chain as acting for `userId` (a sign-in that just proved who the
 * caller is): its later lines, `request handled` included, carry the id. Outside a request chain
 * it does nothing, so start-up lines never borrow a user.
 */
export function identifyUser(userId: string): void {
  const context = storage?.getStore();
  if (context) context.userId = userId;
}
