import { currentLogContext } from '../logging/log-context';
import { errorFields } from '../logging/logger';
import { scrubSecrets } from '../logging/scrub';
import type { TelemetryProperties } from './telemetry';
import { scrubProperties, type ScrubbedProperties } from './telemetry-properties';

/**
 * What every remote backend (Application Insights, OTLP) attaches to the items it sends, so that
 * they carry the same properties, scrubbed the same way, whichever backend is configured.
 */

/**
 * Scrubbed properties plus the trace id and service of the running request chain, for joining an
 * event, exception or dependency with its log lines. The chain's service wins when it names one
 * (the fan-out's `notifications`), else the process's.
 */
export function correlatedProperties(properties: TelemetryProperties | undefined, serviceName: string): ScrubbedProperties {
  const context = currentLogContext();
  return { ...scrubProperties(properties), traceId: context.traceId, service: scrubSecrets(context.service ?? serviceName) };
}

/**
 * Scrubbed metric dimensions plus the service. No trace id: metric properties are dimensions, and a
 * per-request value would make one time series per request.
 */
export function metricDimensions(properties: TelemetryProperties | undefined, serviceName: string): ScrubbedProperties {
  return { ...scrubProperties(properties), service: scrubSecrets(currentLogContext().service ?? serviceName) };
}

/** The dependency's own fields as properties, so backends that only type HTTP/SQL calls still show them. */
export function dependencyProperties(dependency: {
  dependencyType: string;
  target: string;
  resultCode?: string | number;
  properties?: TelemetryProperties;
}): TelemetryProperties {
  return {
    ...dependency.properties,
    dependencyType: dependency.dependencyType,
    target: dependency.target,
    resultCode: dependency.resultCode,
  };
}

/** A copy of the error whose message and stack (with its cause) went through `scrubSecrets`. */
export function scrubbedError(error: unknown): Error {
  const safe = new Error(scrubSecrets(error instanceof Error ? error.message : String(error)));
  safe.name = error instanceof Error ? error.name : 'NonErrorThrown';
  safe.stack = scrubSecrets(errorFields(error).stack);
  return safe;
}
