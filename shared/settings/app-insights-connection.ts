/**
 * The check of an Application Insights connection string, kept apart from `app-insights.ts` so that
 * the facade can refuse a bad one at start-up without loading `applicationinsights`.
 */

const INSTRUMENTATION_KEY = /(?:^|;)\s*InstrumentationKey\s*=\s*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\s*(?:;|$)/i;

/**
 * Throws unless the connection string holds a valid instrumentation key. The message names the
 * setting, never its value.
 * @throws Error for a connection string without a valid instrumentation key (bad configuration).
 */
export function assertAppInsightsConnectionString(connectionString: string): void {
  if (!hasInstrumentationKey(connectionString)) {
    throw new Error('APPLICATIONINSIGHTS_CONNECTION_STRING has no valid InstrumentationKey');
  }
}

/** True when the connection string holds a valid instrumentation key (the settings check it at load). */
export function hasInstrumentationKey(connectionString: string): boolean {
  return INSTRUMENTATION_KEY.test(connectionString);
}
