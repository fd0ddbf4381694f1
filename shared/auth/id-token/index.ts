export {
  createIdTokenVerifier,
  DEFAULT_EMAIL_VERIFICATION,
  MAX_CLOCK_TOLERANCE_SECONDS,
  type EmailVerification,
  type IdTokenClaims,
  type IdTokenVerification,
  type IdTokenVerifier,
  type IdTokenVerifierOptions,
} from './verify-id-token';
export { signatureWasAccepted, type InvalidTokenReason } from './invalid-token-reason';
export { IdpUnavailableError, type ProviderFailureReport, type ProviderStatus } from './provider-failure';
export { logProviderFailure } from './log-provider-failure';
export { MAX_ID_TOKEN_BYTES } from './token-shape';
