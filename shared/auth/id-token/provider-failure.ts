/**
 * How the identity provider's JWKS endpoint failed: an HTTP status other than 200 as digits
 * (`'500'`, `'302'`), or a label for failures without one.
 */
export type ProviderStatus =
  | `${number}`
  | 'redirect'
  | 'timeout'
  | 'network_error'
  | 'invalid_body'
  | 'body_too_large'
  | 'invalid_jwks'
  /** The OIDC discovery document lacks `issuer` or `jwks_uri`, or names a plain-http JWKS for an https document. */
  | 'invalid_discovery'
  /** The discovery document's `issuer` is not the configured one: a misconfiguration, not an outage. */
  | 'issuer_mismatch';

/**
 * The provider could not hand us its keys. Thrown inside jose's key resolution (jose passes it
 * through untouched) and turned into an `idp_unavailable` verification result; it never means
 * the token is bad.
 */
export class IdpUnavailableError extends Error {
  override readonly name = 'IdpUnavailableError';
  constructor(
    readonly providerStatus: ProviderStatus,
    options?: { cause?: unknown },
  ) {
    super(`identity provider JWKS unavailable (${providerStatus})`, options);
  }
}

/** What a failed JWKS fetch tells the operator; passed to `onProviderFailure`. */
export interface ProviderFailureReport {
  providerStatus: ProviderStatus;
  /** The `IdpUnavailableError`, whose `cause` is the underlying network or parse error. */
  cause: unknown;
  /** Whether keys fetched within the stale-if-error window are there to fall back on. */
  staleKeysAvailable: boolean;
}
