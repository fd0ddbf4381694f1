/**
 * The telemetry port. Every custom event, metric, exception and dependency call of the app goes
 * through one of these, so the backend (OpenTelemetry over OTLP, Application Insights, or the log)
 * changes in one place: `shared/telemetry/index.ts`.
 */

import type { TelemetryEventName, TelemetryEventProperties, TelemetryMetricName } from './event-catalogue';

/** Property values are short labels and numbers: never tokens, bodies or personal data. */
export type TelemetryProperties = Readonly<Record<string, string | number | boolean | null | undefined>>;

export interface DependencyTelemetry {
  /** What was called, e.g. `GET jwks` or `sqlite ping`. */
  name: string;
  /** The kind of dependency: `HTTP`, `SQL`, `Azure Queue`, ... */
  dependencyType: string;
  /** Host or resource name, never a URL with credentials. */
  target: string;
  durationMs: number;
  success: boolean;
  resultCode?: string | number;
  properties?: TelemetryProperties;
}

export interface Telemetry {
  /** A custom event of the catalogue (`event-catalogue.ts`), with exactly its properties. */
  trackEvent<N extends TelemetryEventName>(name: N, properties: TelemetryEventProperties<N>): void;
  trackMetric(name: TelemetryMetricName, value: number, properties?: TelemetryProperties): void;
  trackException(error: unknown, properties?: TelemetryProperties): void;
  trackDependency(dependency: DependencyTelemetry): void;
  /** Sends what is buffered; resolves when done (or when the backend gave up). */
  flush(): Promise<void>;
}
