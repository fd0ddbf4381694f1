import { errorFields, type Logger } from '../logging/logger';

/**
 * Wraps the calls of a telemetry backend: a telemetry failure must never fail the request that
 * tracked it, so a throw becomes one warn line naming the call and the error's type.
 */
export function guardedCalls(logger: Logger): (what: string, track: () => void) => void {
  return (what, track) => {
    try {
      track();
    } catch (error) {
      logger.warn({ telemetryCall: what, errorType: errorFields(error).errorType }, 'telemetry call failed');
    }
  };
}
