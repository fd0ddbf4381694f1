import type { Telemetry, TelemetryProperties } from './telemetry';

export type TelemetryItemKind = 'event' | 'metric' | 'exception' | 'dependency';

/** One tracked item, exactly as the code under test handed it over. */
export interface TelemetryItem {
  kind: TelemetryItemKind;
  /** Event, metric or dependency name; the error's name for exceptions. */
  name: string;
  properties: TelemetryProperties;
  /** Metric value, or dependency duration in milliseconds. */
  value?: number;
  /** Exceptions: the error's message and stack. Dependencies: type, target, success, result code. */
  details?: Readonly<Record<string, string | number | boolean | undefined>>;
}

export interface InMemoryTelemetry extends Telemetry {
  readonly items: readonly TelemetryItem[];
  /** How many times `flush()` was called. */
  readonly flushCount: number;
  /** Items of one kind, optionally with one name. */
  itemsOf(kind: TelemetryItemKind, name?: string): TelemetryItem[];
  /** Forgets every item and resets `flushCount`. */
  clear(): void;
  /** Every recorded item as one JSON text, for searching. */
  serialized(): string;
  /** The canaries that appear anywhere in the recorded items (an empty array is the good answer). */
  findCanaries(canaries: readonly string[]): string[];
}

/**
 * The test backend. It records items unscrubbed, on purpose: a canary test must catch a caller
 * that hands a secret to telemetry at all, even though the real backends would scrub it.
 */
export function createInMemoryTelemetry(): InMemoryTelemetry {
  const items: TelemetryItem[] = [];
  let flushCount = 0;
  const serialized = (): string => JSON.stringify(items);
  return {
    get items() {
      return items;
    },
    get flushCount() {
      return flushCount;
    },
    trackEvent(name, properties) {
      items.push({ kind: 'event', name, properties: { ...properties } });
    },
    trackMetric(name, value, properties) {
      items.push({ kind: 'metric', name, value, properties: { ...properties } });
    },
    trackException(error, properties) {
      const details =
        error instanceof Error
          ? { message: error.message, stack: error.stack ?? '' }
          : { message: String(error), stack: '' };
      const name = error instanceof Error ? error.name : typeof error;
      items.push({ kind: 'exception', name, properties: { ...properties }, details });
    },
    trackDependency(dependency) {
      items.push({
        kind: 'dependency',
        name: dependency.name,
        value: dependency.durationMs,
        properties: { ...dependency.properties },
        details: {
          dependencyType: dependency.dependencyType,
          target: dependency.target,
          success: dependency.success,
          resultCode: dependency.resultCode,
        },
      });
    },
    flush() {
      flushCount += 1;
      return Promise.resolve();
    },
    itemsOf(kind, name) {
      return items.filter((item) => item.kind === kind && (name === undefined || item.name === name));
    },
    clear() {
      items.length = 0;
      flushCount = 0;
    },
    serialized,
    findCanaries(canaries) {
      const text = serialized();
      return canaries.filter((canary) => text.includes(canary) || text.includes(JSON.stringify(canary).slice(1, -1)));
    },
  };
}
