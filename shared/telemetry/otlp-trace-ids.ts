import { RandomIdGenerator, type IdGenerator } from '@opentelemetry/sdk-trace-base';
import { currentLogContext } from '../logging/log-context';

/** A W3C trace id the OTLP receivers accept: 32 lowercase hex digits, not all zero. */
const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;

/**
 * Ids for the dependency spans: each span is a root span (the request span belongs to the
 * Functions host) but takes the trace id of the running request chain, so a backend shows the call
 * in the same trace as the chain's log lines and events, the way the Application Insights backend
 * uses it as the operation id. No parent span id is invented.
 */
export function logContextIdGenerator(random: IdGenerator = new RandomIdGenerator()): IdGenerator {
  return {
    generateTraceId() {
      const { traceId } = currentLogContext();
      return TRACE_ID.test(traceId) ? traceId : random.generateTraceId();
    },
    generateSpanId() {
      return random.generateSpanId();
    },
  };
}
