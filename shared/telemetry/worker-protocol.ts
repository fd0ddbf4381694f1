import type { LogLevel } from '../config';
import type { TelemetryEventName, TelemetryMetricName } from './event-catalogue';
import type { DependencyTelemetry, TelemetryProperties } from './telemetry';

/**
 * The messages between the telemetry facade (main thread) and the worker thread that owns the
 * telemetry SDK (`telemetry-worker.ts`). Plain data only: everything crosses by structured clone.
 */

/** What the worker needs to build its backend: the configured settings, never a live object. */
export type TelemetryWorkerSettings =
  | { backend: 'application-insights'; connectionString: string; serviceName: string; logLevel: LogLevel; secrets: readonly string[] }
  | { backend: 'otlp'; endpoint: string; serviceName: string; resourceServiceName: string; logLevel: LogLevel; secrets: readonly string[] };

/** The log context of the caller, so the worker tracks the item in the request chain's trace. */
export interface ItemContext {
  traceId: string;
  userId: string | null;
  service?: string;
}

/** An error as plain strings (its stack with its cause's, as `errorFields` writes it). */
export interface PlainError {
  name: string;
  message: string;
  stack: string;
}

export type TelemetryItem =
  | { type: 'event'; name: TelemetryEventName; properties: TelemetryProperties }
  | { type: 'metric'; name: TelemetryMetricName; value: number; properties?: TelemetryProperties }
  | { type: 'exception'; error: PlainError; properties?: TelemetryProperties }
  | { type: 'dependency'; dependency: DependencyTelemetry };

/** One tracked call with the log context it was made in. */
export interface ContextualItem {
  item: TelemetryItem;
  context: ItemContext;
}

/**
 * The calls of one turn of the event loop travel as one `items` message, in the order they were
 * made: a fan-out tracks an event per delivery, and one message per call cost the main thread more
 * than the rest of the telemetry did. A flush comes after every item tracked before it.
 */
export type ToWorker = { kind: 'items'; items: ContextualItem[] } | { kind: 'flush'; id: number };

export type FromWorker =
  /** The backend is built (`backend`), or it failed to load and the worker sends telemetry to the log (`log-only`). */
  | { kind: 'ready'; backend: string }
  /** The backend failed to load: its error, configured secrets already removed. */
  | { kind: 'failed'; backend: string; errorType: string; stack: string }
  /** Flush `id` is done: every item of the first `received` has been handed to the exporters and flushed. */
  | { kind: 'flushed'; id: number; received: number }
  /** A log line the worker's logger wrote (a failing call, the log backend's lines), for the app's log. */
  | { kind: 'line'; line: string };
