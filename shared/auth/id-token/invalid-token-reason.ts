import { errorCode } from './jwks-key-source';

/**
 * Why a token was refused: short labels for logs and metrics, never token content. The first
 * group is decided before a signature was accepted, the second only after it was.
 */
export const PRE_SIGNATURE_REASONS = [
  'oversized',
  'malformed',
  /** Several providers: the token's `iss` names none of them (decided from the unverified payload). */
  'unknown_issuer',
  'alg_not_allowed',
  'unsupported_header',
  'no_matching_key',
  'unusable_key',
  'bad_signature',
] as const;

export const POST_SIGNATURE_REASONS = [
  'payload_not_claims',
  'wrong_typ',
  'expired',
  'not_yet_valid',
  'issued_in_future',
  'wrong_issuer',
  'wrong_audience',
  /** Several audiences (ours among them) and no `azp` (OIDC Core §3.1.3.7). */
  'azp_missing',
  /** Several audiences and an `azp` that is not our client id among them. */
  'azp_mismatch',
  'claim_missing',
  'claim_invalid',
  /** The provider requires a nonce and the sign-in sent none. */
  'nonce_missing',
  /** The token's `nonce` is neither the sent nonce nor its SHA-256 hex. */
  'nonce_mismatch',
] as const;

export type InvalidTokenReason =
  | (typeof PRE_SIGNATURE_REASONS)[number]
  | (typeof POST_SIGNATURE_REASONS)[number]
  /** Not a jose error at all; a 401 still, but worth a look in the logs. */
  | 'verification_error';

/** True when the reason means the signature had already been verified (tests use it). */
export function signatureWasAccepted(reason: InvalidTokenReason): boolean {
  return (POST_SIGNATURE_REASONS as readonly string[]).includes(reason);
}

const BY_CODE: Readonly<Record<string, InvalidTokenReason>> = {
  ERR_JWS_INVALID: 'malformed',
  ERR_JOSE_ALG_NOT_ALLOWED: 'alg_not_allowed',
  // Unknown `crit` extensions and algorithms a key set cannot serve.
  ERR_JOSE_NOT_SUPPORTED: 'unsupported_header',
  ERR_JWKS_NO_MATCHING_KEY: 'no_matching_key',
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'no_matching_key',
  ERR_JWKS_INVALID: 'unusable_key',
  ERR_JWK_INVALID: 'unusable_key',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'bad_signature',
  // jwtVerify throws JWTInvalid only after the signature: payload not a JSON object, or b64=false.
  ERR_JWT_INVALID: 'payload_not_claims',
  ERR_JWT_EXPIRED: 'expired',
};

const BY_CLAIM: Readonly<Record<string, InvalidTokenReason>> = {
  iss: 'wrong_issuer',
  aud: 'wrong_audience',
  nbf: 'not_yet_valid',
  typ: 'wrong_typ',
};

/** Maps whatever jose threw for a token to a reason; never throws. */
export function invalidTokenReason(error: unknown): InvalidTokenReason {
  const code = errorCode(error);
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') {
    const { claim, reason } = error as { claim?: unknown; reason?: unknown };
    if (reason === 'missing') return 'claim_missing';
    return (typeof claim === 'string' ? BY_CLAIM[claim] : undefined) ?? 'claim_invalid';
  }
  const byCode = code !== undefined && Object.hasOwn(BY_CODE, code) ? BY_CODE[code] : undefined;
  if (byCode) return byCode;
  // jose throws TypeError for keys it will not use (an RSA modulus under 2048 bits, a bad JWK).
  if (error instanceof TypeError) return 'unusable_key';
  return 'verification_error';
}
