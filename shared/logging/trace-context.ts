import { newTraceId } from './log-context';

/** A parsed W3C `traceparent` (version 00). */
export interface TraceParent {
  traceId: string;
  parentId: string;
  flags: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/**
 * Parses a `traceparent` header; undefined for anything malformed, an all-zero id or version ff,
 * as the W3C Trace Context spec asks (a bad header starts a new trace rather than failing the request).
 */
export function parseTraceParent(header: string | null | undefined): TraceParent | undefined {
  if (!header || header.length > 512) return undefined;
  const match = TRACEPARENT.exec(header.trim().toLowerCase());
  if (!match) return undefined;
  const [, version, traceId, parentId, flags] = match as unknown as [string, string, string, string, string];
  if (version === 'ff' || (version === '00' && header.trim().length !== 55)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(parentId)) return undefined;
  return { traceId, parentId, flags };
}

/**
 * The trace id of a request: the caller's `traceparent` when valid, else the Functions invocation's
 * trace context, else a new one. It labels every log line, audit row and problem body of the request.
 */
export function resolveTraceId(incomingTraceParent: string | null, invocationTraceParent: string | undefined): string {
  return (
    parseTraceParent(incomingTraceParent)?.traceId ?? parseTraceParent(invocationTraceParent)?.traceId ?? newTraceId()
  );
}
