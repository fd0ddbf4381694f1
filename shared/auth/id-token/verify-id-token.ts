import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Config } from '../../config';
import type { Clock } from '../../ports/clock';
import { loadJose, type CryptoKey, type Jose, type JWTPayload } from './jose';
import {
  createLocalKeySource,
  createRemoteKeySource,
  errorCode,
  type IdTokenKeySource,
  type RemoteKeySourceOptions,
} from './jwks-key-source';
import { createDiscoveryKeySource } from './discovery-key-source';
import { invalidTokenReason, type InvalidTokenReason } from './invalid-token-reason';
import { isUnsafeAlgorithm, type IdentityProviderSettings } from '../../settings/provider-settings';
import { IdpUnavailableError, type ProviderFailureReport, type ProviderStatus } from './provider-failure';
import { tokenShapeProblem } from './token-shape';
import { canonicalEmail, canonicalPhone } from '../../validation/contact-address';

/** The identity a verified ID token proves. Users are keyed by (`issuer`, `subject`). */
export interface IdTokenClaims {
  issuer: string;
  subject: string;
  /**
   * Only when the provider vouches for the address (see `EmailVerification`); absent also when the
   * token has no `email` at all, which tells nothing about the stored one.
   */
  email?: string;
  /** Only when the provider says it verified the number (`phone_number_verified: true`). */
  phone?: string;
}

/**
 * How the provider marks an `email` claim as verified (`config.idpEmail`). Providers differ: most
 * send `email_verified: true` (Apple as the string `"true"`); Entra ID sends no such claim, but
 * can send `xms_edov` (domain owner verified) as an optional claim; Entra External ID sends
 * neither, and verifies every address of its own sign-up with a one-time code.
 */
export interface EmailVerification {
  /** The claim that must be true for `email` to count (`email_verified`, or e.g. `xms_edov`). */
  verifiedClaim: string;
  /**
   * The issuer puts only verified addresses in `email`: when `verifiedClaim` is absent the address
   * counts as verified (a present claim that is not true still refuses it).
   */
  verifiedByIssuer: boolean;
}

/** OIDC's own claim and no trust in the issuer beyond it: the default. */
export const DEFAULT_EMAIL_VERIFICATION: EmailVerification = { verifiedClaim: 'email_verified', verifiedByIssuer: false };

/** Phone numbers follow OIDC's own flag only: none of the providers above sends a number without it. */
const PHONE_VERIFICATION: EmailVerification = { verifiedClaim: 'phone_number_verified', verifiedByIssuer: false };

export type IdTokenVerification =
  | { ok: true; claims: IdTokenClaims }
  | { ok: false; failure: 'invalid_token'; reason: InvalidTokenReason }
  | {
      ok: false;
      failure: 'idp_unavailable';
      providerStatus: ProviderStatus;
      cause: unknown;
      /** For the `Retry-After` header. */
      retryAfterSeconds: number;
    };

/** What the sign-in sends besides the token. */
export interface IdTokenCheck {
  /**
   * The `nonce` the app generated for this sign-in: the token's `nonce` claim must equal it (Google's
   * native flows put the app's value in the token as it is) or its SHA-256 in hex (Sign in with
   * Apple on iOS, where the app hands Apple the hash of the nonce it keeps).
   */
  nonce?: string | undefined;
}

export interface IdTokenVerifier {
  /** Never throws for any input: every outcome is a returned value. */
  verify(token: string, check?: IdTokenCheck): Promise<IdTokenVerification>;
}

/** The contract's ceiling for clock skew between us and the provider. */
export const MAX_CLOCK_TOLERANCE_SECONDS = 30;

export interface IdTokenVerifierOptions {
  idp: Config['idp'];
  clock: Clock;
  /** Default and maximum 30 s. */
  clockToleranceSeconds?: number;
  /** When `email` counts as verified; default `DEFAULT_EMAIL_VERIFICATION` (each of several providers has its own). */
  emailVerification?: EmailVerification;
  /** Remote provider only: once per failed JWKS fetch, whether or not stale keys saved the day. */
  onProviderFailure?: (report: ProviderFailureReport) => void;
  /** Remote provider only: JWKS timing and transport (defaults suit production). */
  jwks?: Omit<RemoteKeySourceOptions, 'jwksUri' | 'clock' | 'onProviderFailure'>;
}

/**
 * Creates the ID-token verifier; call it once per process (its JWKS cache lives inside it).
 * Throws `TypeError` for unusable settings, so a misconfiguration stops the start-up.
 *
 * Checks, in order: size (8 KiB) and compact shape before any parsing; then jose with the algorithm
 * allow-list, the key from the JWKS, the signature, exact `iss`, `aud`, required `exp`/`iat`/`sub`,
 * `nbf`, clock tolerance; then ours: `typ`, when present, must be `JWT` (so an access token of the
 * same provider, `at+jwt`, is not taken for an ID token), `iat` not in the future, `sub` a
 * non-empty string of at most 255 characters (OIDC's limit), several audiences only with an `azp`
 * that is ours (`authorizedPartyCheck`), the nonce.
 */
export function createIdTokenVerifier(options: IdTokenVerifierOptions): IdTokenVerifier {
  const { clock } = options;
  const tolerance = options.clockToleranceSeconds ?? MAX_CLOCK_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0 || tolerance > MAX_CLOCK_TOLERANCE_SECONDS) {
    throw new TypeError(`clockToleranceSeconds must be between 0 and ${MAX_CLOCK_TOLERANCE_SECONDS}`);
  }
  const providers = providersOf(options);

  return {
    async verify(token, check = {}) {
      const shapeProblem = tokenShapeProblem(token);
      if (shapeProblem) return { ok: false, failure: 'invalid_token', reason: shapeProblem };
      let provider = providers[0] as Provider;
      try {
        const jose = await loadJose();
        if (providers.length > 1) {
          const selected = await selectProvider(jose, token, providers);
          if (typeof selected === 'string') return { ok: false, failure: 'invalid_token', reason: selected };
          provider = selected;
        }
        const issuer = await provider.resolveIssuer();
        const now = clock.now();
        const verified = await verifyWithKeySource(jose, token, provider.keys, {
          algorithms: provider.algorithms,
          issuer,
          audience: provider.audiences,
          requiredClaims: ['exp', 'iat', 'sub'],
          clockTolerance: tolerance,
          currentDate: now,
        });
        const nonceProblem = nonceCheck(verified.payload['nonce'], check.nonce, provider.nonceRequired);
        const result = claimsOf(verified.payload, verified.protectedHeader.typ, now, tolerance, provider.emailVerification);
        const partyProblem = authorizedPartyCheck(verified.payload, provider.audiences);
        if (result.ok && partyProblem) return { ok: false, failure: 'invalid_token', reason: partyProblem };
        if (result.ok && nonceProblem) return { ok: false, failure: 'invalid_token', reason: nonceProblem };
        return result;
      } catch (error) {
        if (error instanceof IdpUnavailableError) {
          return {
            ok: false,
            failure: 'idp_unavailable',
            providerStatus: error.providerStatus,
            cause: error,
            retryAfterSeconds: provider.keys.retryAfterSeconds(),
          };
        }
        return { ok: false, failure: 'invalid_token', reason: invalidTokenReason(error) };
      }
    },
  };
}

/** One provider as the verifier uses it. */
interface Provider {
  /** Its issuer when known without the network: configured, or from a discovery document already read. */
  knownIssuer(): string | undefined;
  /** Its issuer, reading the discovery document when needed (throws `IdpUnavailableError`). */
  resolveIssuer(): Promise<string>;
  keys: IdTokenKeySource;
  audiences: string[];
  algorithms: string[];
  emailVerification: EmailVerification;
  nonceRequired: boolean;
}

function providersOf(options: IdTokenVerifierOptions): Provider[] {
  const { idp } = options;
  const emailVerification = options.emailVerification ?? DEFAULT_EMAIL_VERIFICATION;
  if (idp.kind !== 'providers') {
    if (!idp.issuer || !idp.audience) throw new TypeError('the identity provider needs an issuer and an audience');
    const keys = idp.kind === 'development' ? developmentKeys(idp.keyDirectory) : remoteKeys(options, idp.jwksUri);
    return [fixedIssuer(idp.issuer, keys, [idp.audience], checkedAlgorithms(idp.algorithms), emailVerification, false)];
  }
  if (idp.providers.length === 0) throw new TypeError('IDP_PROVIDERS lists no provider');
  return idp.providers.map((settings) => providerOf(options, settings));
}

function providerOf(options: IdTokenVerifierOptions, settings: IdentityProviderSettings): Provider {
  if (settings.audiences.length === 0) throw new TypeError(`identity provider ${settings.name} needs an audience`);
  const algorithms = checkedAlgorithms(settings.algorithms);
  if (settings.keys.kind === 'jwks') {
    if (!settings.issuer) throw new TypeError(`identity provider ${settings.name} needs an issuer`);
    const keys = remoteKeys(options, settings.keys.jwksUri);
    return fixedIssuer(settings.issuer, keys, settings.audiences, algorithms, settings.emailVerification, settings.nonceRequired);
  }
  const discovery = createDiscoveryKeySource({
    ...options.jwks,
    discoveryUrl: settings.keys.discoveryUrl,
    expectedIssuer: settings.issuer,
    clock: options.clock,
    ...(options.onProviderFailure ? { onProviderFailure: options.onProviderFailure } : {}),
  });
  return {
    knownIssuer: () => discovery.knownIssuer(),
    // A configured issuer is still checked against the document (the keys come from it anyway).
    resolveIssuer: () => discovery.resolveIssuer(),
    keys: discovery,
    audiences: settings.audiences,
    algorithms,
    emailVerification: settings.emailVerification,
    nonceRequired: settings.nonceRequired,
  };
}

function fixedIssuer(
  issuer: string,
  keys: IdTokenKeySource,
  audiences: string[],
  algorithms: string[],
  emailVerification: EmailVerification,
  nonceRequired: boolean,
): Provider {
  return { knownIssuer: () => issuer, resolveIssuer: async () => issuer, keys, audiences, algorithms, emailVerification, nonceRequired };
}

function developmentKeys(keyDirectory: string): IdTokenKeySource {
  const directory = path.resolve(keyDirectory);
  return createLocalKeySource(async () => {
    // Loaded here, not at start: production never uses it, and its `fs/promises` costs every cold start.
    const devIdp = await import('./dev-identity-provider.js');
    return devIdp.devIdpJwks(await devIdp.loadOrCreateDevIdpKeys(directory));
  });
}

function remoteKeys(options: IdTokenVerifierOptions, jwksUri: string): IdTokenKeySource {
  return createRemoteKeySource({
    ...options.jwks,
    jwksUri,
    clock: options.clock,
    ...(options.onProviderFailure ? { onProviderFailure: options.onProviderFailure } : {}),
  });
}

/**
 * The provider a token claims to come from, by its unverified `iss` (the signature, the issuer and
 * everything else are then checked against that provider alone). Providers known only by their
 * discovery document have it read first; when one cannot be read and no other provider matches,
 * the provider may be the unreachable one: `IdpUnavailableError`, not a refusal.
 */
async function selectProvider(jose: Jose, token: string, providers: readonly Provider[]): Promise<Provider | InvalidTokenReason> {
  let iss: unknown;
  try {
    iss = jose.decodeJwt(token).iss;
  } catch {
    return 'malformed';
  }
  if (typeof iss !== 'string') return 'unknown_issuer';
  const known = providers.find((provider) => provider.knownIssuer() === iss);
  if (known) return known;
  let unavailable: IdpUnavailableError | undefined;
  for (const provider of providers.filter((candidate) => candidate.knownIssuer() === undefined)) {
    try {
      if ((await provider.resolveIssuer()) === iss) return provider;
    } catch (error) {
      if (!(error instanceof IdpUnavailableError)) throw error;
      unavailable ??= error;
    }
  }
  if (unavailable) throw unavailable;
  return 'unknown_issuer';
}

/**
 * The nonce rule: a nonce sent with the sign-in must match the token's, as sent or as its SHA-256
 * hex (Apple); a provider with `nonceRequired` refuses a sign-in without one. A token with a nonce
 * and a sign-in without one passes unless required: a web flow's nonce was checked by its client.
 */
function nonceCheck(claim: unknown, sent: string | undefined, required: boolean): InvalidTokenReason | undefined {
  if (sent === undefined) return required ? 'nonce_missing' : undefined;
  if (typeof claim !== 'string') return 'nonce_mismatch';
  if (claim === sent) return undefined;
  const hashed = createHash('sha256').update(sent, 'utf8').digest('hex');
  return claim.toLowerCase() === hashed ? undefined : 'nonce_mismatch';
}

/**
 * OIDC Core 1.0 §3.1.3.7, items 2 to 4, beyond jose's check that `aud` names one of our client
 * ids: a token issued to several audiences is ours only when it names us as its authorized party,
 * so `azp` must be present, be one of our client ids, and be among the audiences (the other
 * audiences are then ones our own client asked for). A single audience (a string, or an array of
 * one) needs no `azp`, and one that is present is not compared: Google's native sign-in issues the
 * token to the web client id (`aud`, ours) with the Android or iOS client id as `azp`.
 */
function authorizedPartyCheck(payload: JWTPayload, audiences: readonly string[]): InvalidTokenReason | undefined {
  const { aud, azp } = payload;
  if (!Array.isArray(aud) || aud.length <= 1) return undefined;
  if (typeof azp !== 'string') return 'azp_missing';
  return audiences.includes(azp) && aud.includes(azp) ? undefined : 'azp_mismatch';
}

function checkedAlgorithms(algorithms: readonly string[]): string[] {
  if (algorithms.length === 0) throw new TypeError('the identity provider needs at least one algorithm');
  const unsafe = algorithms.filter(isUnsafeAlgorithm);
  if (unsafe.length > 0) throw new TypeError(`algorithms ${unsafe.join(', ')} cannot verify provider tokens`);
  return [...algorithms];
}

type VerifyOptions = Parameters<Jose['jwtVerify']>[2];
type Verified = Awaited<ReturnType<Jose['jwtVerify']>>;

/**
 * jose leaves a token that several keys could verify (no `kid`, several keys of its type) to the
 * caller: each candidate is tried, and the token is refused when none verifies it.
 */
async function verifyWithKeySource(jose: Jose, token: string, keys: IdTokenKeySource, options: VerifyOptions): Promise<Verified> {
  try {
    return await jose.jwtVerify(token, (header, input) => keys.getKey(header, input), options);
  } catch (error) {
    if (errorCode(error) !== 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') throw error;
    for await (const candidate of error as unknown as AsyncIterable<CryptoKey>) {
      try {
        return await jose.jwtVerify(token, candidate, options);
      } catch (attempt) {
        if (errorCode(attempt) !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') throw attempt;
      }
    }
    throw new jose.errors.JWSSignatureVerificationFailed();
  }
}

function claimsOf(
  payload: JWTPayload,
  typ: string | undefined,
  now: Date,
  toleranceSeconds: number,
  emailVerification: EmailVerification,
): IdTokenVerification {
  const refuse = (reason: InvalidTokenReason): IdTokenVerification => ({ ok: false, failure: 'invalid_token', reason });
  if (typ !== undefined && !['jwt', 'application/jwt'].includes(typ.toLowerCase())) return refuse('wrong_typ');
  const { iss, sub, iat } = payload;
  // jose checks `iat` is a number but, without a maximum token age, not that it is in the past.
  if (typeof iat !== 'number') return refuse('claim_invalid');
  if (iat > now.getTime() / 1000 + toleranceSeconds) return refuse('issued_in_future');
  if (typeof iss !== 'string' || typeof sub !== 'string' || sub.length === 0 || sub.length > 255) return refuse('claim_invalid');
  const claims: IdTokenClaims = { issuer: iss, subject: sub };
  const email = verifiedClaim(payload, 'email', emailVerification, canonicalEmail);
  if (email !== undefined) claims.email = email;
  const phone = verifiedClaim(payload, 'phone_number', PHONE_VERIFICATION, canonicalPhone);
  if (phone !== undefined) claims.phone = phone;
  return { ok: true, claims };
}

/**
 * A contact claim the provider vouches for, in canonical form, or nothing (a bad one is dropped,
 * not an error: the sign-in does not depend on it).
 */
function verifiedClaim(
  payload: JWTPayload,
  name: string,
  verification: EmailVerification,
  canonical: (raw: string) => string | undefined,
): string | undefined {
  const value = payload[name];
  if (typeof value !== 'string') return undefined;
  const flag = payload[verification.verifiedClaim];
  const verified = flag === undefined ? verification.verifiedByIssuer : isAsserted(flag);
  return verified ? canonical(value) : undefined;
}

/**
 * A verification flag that says yes: the boolean `true` OIDC specifies, or the string `"true"`
 * Apple sends. Anything else (`false`, `"false"`, `"yes"`, a number) is not a yes.
 */
function isAsserted(flag: unknown): boolean {
  return flag === true || flag === 'true';
}
