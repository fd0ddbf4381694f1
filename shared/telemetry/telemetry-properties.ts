import { scrubSecrets } from '../logging/scrub';
import type { TelemetryProperties } from './telemetry';

/** Property values as every backend sends them: strings that went through `scrubSecrets`. */
export type ScrubbedProperties = Record<string, string>;

/**
 * Turns caller properties into scrubbed strings, dropping `null` and `undefined` values. Backends
 * call this on everything they send: property values are meant to be short labels, and this is
 * the defence in case a caller still hands over a token or an address.
 */
export function scrubProperties(properties: TelemetryProperties | undefined): ScrubbedProperties {
  const scrubbed: ScrubbedProperties = {};
  if (!properties) {
    return scrubbed;
  }
  for (const [key, value] of Object.entries(properties)) {
    if (value !== null && value !== undefined) {
      scrubbed[key] = scrubSecrets(String(value));
    }
  }
  return scrubbed;
}
