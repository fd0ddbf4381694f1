import { randomBytes } from 'node:crypto';
import type { TraceContext } from '@azure/functions';
import { parseTraceParent } from '../shared/logging/trace-context';
import { newTraceId } from '../shared/logging/log-context';

/**
 * The trace context the host gives one invocation. Like the real host (whose invocation activity
 * is a child of the caller's), a valid incoming `traceparent` keeps its trace id and flags with a
 * new span id; anything else starts a new trace.
 */
export function invocationTraceContext(incomingTraceParent?: string | null, incomingTraceState?: string | null): TraceContext {
  const incoming = parseTraceParent(incomingTraceParent);
  if (!incoming) return { traceParent: `00-${newTraceId()}-${newSpanId()}-00`, traceState: undefined, attributes: {} };
  const traceState = incomingTraceState && incomingTraceState.length <= 512 ? incomingTraceState : undefined;
  return { traceParent: `00-${incoming.traceId}-${newSpanId()}-${incoming.flags}`, traceState, attributes: {} };
}

/** The trace id inside a `traceparent` this module made (for the host's own log lines). */
export function traceIdOf(traceContext: TraceContext): string {
  return parseTraceParent(traceContext.traceParent)?.traceId ?? newTraceId();
}

function newSpanId(): string {
  return randomBytes(8).toString('hex');
}
