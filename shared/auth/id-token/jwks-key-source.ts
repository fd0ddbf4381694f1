import type { Clock } from '../../ports/clock';
import type { CompactJWSHeaderParameters, CryptoKey, FlattenedJWSInput, JSONWebKeySet } from './jose';
import { loadJose } from './jose';
import { createJwksFetch } from './jwks-fetch';
import { IdpUnavailableError, type ProviderFailureReport } from './provider-failure';

/**
 * Where the verifier gets its public keys: a jose key resolver. Provider failures are thrown as
 * `IdpUnavailableError`; every other error concerns the token (no key for its `kid`, ...).
 */
export interface IdTokenKeySource {
  getKey(header: CompactJWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey>;
  /** When a caller may retry after an `IdpUnavailableError`, in whole seconds (at least 1). */
  retryAfterSeconds(): number;
}

export interface RemoteKeySourceOptions {
  jwksUri: string;
  /** Ages the stale-if-error keys and the retry pause; jose's own cache runs on the real clock. */
  clock: Clock;
  /** Abort a JWKS fetch after this long. Default 3 s: a sign-in should not hang on the provider. */
  timeoutMs?: number;
  /** After a fetch, an unknown `kid` triggers a new fetch only once this has passed. Default 30 s. */
  cooldownMs?: number;
  /** Keys are refetched when older than this. Default 10 minutes. */
  cacheMaxAgeMs?: number;
  /** When the provider fails, keys fetched this recently still verify tokens. Default 24 hours. */
  staleIfErrorMs?: number;
  /**
   * After a failed fetch, the provider is left alone this long: requests use the stale keys (or
   * get `idp_unavailable`) at once instead of each waiting for their own timeout. Default 5 s.
   */
  retryPauseMs?: number;
  maxBodyBytes?: number;
  fetch?: typeof fetch;
  /** Called once per failed fetch (not per request): the place to log and count the outage. */
  onProviderFailure?: (report: ProviderFailureReport) => void;
}

const DEFAULTS = {
  timeoutMs: 3_000,
  cooldownMs: 30_000,
  cacheMaxAgeMs: 10 * 60_000,
  staleIfErrorMs: 24 * 60 * 60_000,
  retryPauseMs: 5_000,
};

type KeyResolver = (header: CompactJWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

/**
 * The identity provider's remote JWKS, created once per process: jose's `createRemoteJWKSet` with
 * explicit timeout, cooldown and cache age, behind a fetch that classifies provider failures.
 * Stale-if-error: when a fetch fails, the last key set fetched within `staleIfErrorMs` (by the
 * injected clock) keeps verifying tokens; a token whose key is not in it gets `idp_unavailable`,
 * since the provider may have rotated to a key we could not fetch.
 */
export function createRemoteKeySource(options: RemoteKeySourceOptions): IdTokenKeySource {
  const url = new URL(options.jwksUri); // throws at start-up for a bad setting
  const settings = {
    timeoutMs: duration('timeoutMs', options.timeoutMs, DEFAULTS.timeoutMs),
    cooldownMs: duration('cooldownMs', options.cooldownMs, DEFAULTS.cooldownMs),
    cacheMaxAgeMs: duration('cacheMaxAgeMs', options.cacheMaxAgeMs, DEFAULTS.cacheMaxAgeMs),
    staleIfErrorMs: duration('staleIfErrorMs', options.staleIfErrorMs, DEFAULTS.staleIfErrorMs),
    retryPauseMs: duration('retryPauseMs', options.retryPauseMs, DEFAULTS.retryPauseMs),
  };
  const { clock } = options;

  let lastGood: { jwks: JSONWebKeySet; fetchedAt: number; resolver?: KeyResolver } | undefined;
  let lastFailure: { error: IdpUnavailableError; at: number } | undefined;
  let remote: Promise<KeyResolver> | undefined;

  const remoteResolver = (): Promise<KeyResolver> => {
    remote ??= loadJose().then((jose) =>
      jose.createRemoteJWKSet(url, {
        timeoutDuration: settings.timeoutMs,
        cooldownDuration: settings.cooldownMs,
        cacheMaxAge: settings.cacheMaxAgeMs,
        [jose.customFetch]: createJwksFetch({
          ...(options.fetch ? { fetch: options.fetch } : {}),
          ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
          onKeySet: (jwks) => {
            lastGood = { jwks, fetchedAt: clock.now().getTime() };
            lastFailure = undefined;
          },
        }),
      }),
    );
    return remote;
  };

  const staleResolver = async (): Promise<KeyResolver | undefined> => {
    const good = lastGood;
    if (!good || clock.now().getTime() - good.fetchedAt > settings.staleIfErrorMs) return undefined;
    if (!good.resolver) {
      const jose = await loadJose();
      good.resolver = jose.createLocalJWKSet(good.jwks);
    }
    return good.resolver;
  };

  const withStaleKeys = async (
    failure: IdpUnavailableError,
    header: CompactJWSHeaderParameters,
    token: FlattenedJWSInput,
  ): Promise<CryptoKey> => {
    const stale = await staleResolver();
    if (!stale) throw failure;
    try {
      return await stale(header, token);
    } catch (error) {
      if (errorCode(error) === 'ERR_JWKS_NO_MATCHING_KEY') throw failure;
      throw error;
    }
  };

  return {
    async getKey(header, token) {
      const pause = lastFailure;
      if (pause && clock.now().getTime() - pause.at < settings.retryPauseMs) {
        return withStaleKeys(pause.error, header, token);
      }
      const resolver = await remoteResolver();
      try {
        return await resolver(header, token);
      } catch (error) {
        const failure = asProviderFailure(error);
        if (!failure) throw error;
        // Concurrent requests share jose's one pending fetch; report its failure once.
        if (lastFailure?.error !== failure) {
          lastFailure = { error: failure, at: clock.now().getTime() };
          const staleKeysAvailable = (await staleResolver()) !== undefined;
          try {
            options.onProviderFailure?.({ providerStatus: failure.providerStatus, cause: failure, staleKeysAvailable });
          } catch {
            // A reporting fault must not turn into a refused sign-in.
          }
        }
        return withStaleKeys(failure, header, token);
      }
    },
    retryAfterSeconds() {
      const since = lastFailure ? clock.now().getTime() - lastFailure.at : 0;
      return Math.max(1, Math.ceil((settings.retryPauseMs - since) / 1000));
    },
  };
}

/**
 * A fixed key set (the development identity provider). `loadKeySet` runs on first use and again
 * when a token names a key the set lacks, so keys recreated on disk are picked up.
 */
export function createLocalKeySource(loadKeySet: () => Promise<JSONWebKeySet>): IdTokenKeySource {
  let resolver: Promise<KeyResolver> | undefined;
  const load = (): Promise<KeyResolver> => {
    const loading = Promise.all([loadJose(), loadKeySet()]).then(([jose, jwks]) => jose.createLocalJWKSet(jwks));
    loading.catch(() => {
      if (resolver === loading) resolver = undefined;
    });
    resolver = loading;
    return loading;
  };
  return {
    async getKey(header, token) {
      const current = resolver ?? load();
      try {
        return await (await current)(header, token);
      } catch (error) {
        if (errorCode(error) !== 'ERR_JWKS_NO_MATCHING_KEY' || resolver !== current) throw error;
        return (await load())(header, token);
      }
    },
    retryAfterSeconds: () => 1,
  };
}

/** jose's `JWKSTimeout` cannot come from our fetch, which handles timeouts itself; kept as a guard. */
function asProviderFailure(error: unknown): IdpUnavailableError | undefined {
  if (error instanceof IdpUnavailableError) return error;
  if (errorCode(error) === 'ERR_JWKS_TIMEOUT') return new IdpUnavailableError('timeout', { cause: error });
  return undefined;
}

/** jose's documented error codes, stable across releases (and module instances, unlike classes). */
export function errorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** Checked at creation: jose would only complain on the first verification, mid-request. */
function duration(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative whole number of milliseconds`);
  return value;
}
