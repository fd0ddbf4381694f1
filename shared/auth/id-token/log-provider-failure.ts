import { errorFields, type Logger } from '../../logging/logger';
import type { Telemetry } from '../../telemetry/telemetry';
import type { ProviderFailureReport } from './provider-failure';

/**
 * The `onProviderFailure` the composition root passes to `createIdTokenVerifier`: each failed JWKS
 * fetch becomes one error-level line with the provider's status, an `idp.unavailable` event and an
 * exception, whether stale keys then kept sign-in working or not.
 */
export function logProviderFailure(logger: Logger, telemetry: Telemetry): (report: ProviderFailureReport) => void {
  return ({ providerStatus, cause, staleKeysAvailable }) => {
    logger.error(
      { errorCode: 'idp_unavailable', providerStatus, staleKeysAvailable, ...errorFields(cause) },
      staleKeysAvailable
        ? 'identity provider JWKS fetch failed; verifying with keys fetched earlier'
        : 'identity provider JWKS fetch failed; no usable cached keys',
    );
    telemetry.trackEvent('idp.unavailable', { status: providerStatus, staleKeysAvailable });
    telemetry.trackException(cause, { errorCode: 'idp_unavailable', status: providerStatus });
  };
}
