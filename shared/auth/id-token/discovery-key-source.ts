import type { CompactJWSHeaderParameters, CryptoKey, FlattenedJWSInput } from './jose';
import { DEFAULT_MAX_JWKS_BYTES, readBodyText, transportFailure } from './jwks-fetch';
import { createRemoteKeySource, type IdTokenKeySource, type RemoteKeySourceOptions } from './jwks-key-source';
import { IdpUnavailableError } from './provider-failure';

/** A key source that also knows the provider's issuer, read from its discovery document. */
export interface DiscoveryKeySource extends IdTokenKeySource {
  /** The issuer when a document was read (or stale-usable), without touching the network. */
  knownIssuer(): string | undefined;
  /** The issuer, reading the document when needed; throws `IdpUnavailableError`. */
  resolveIssuer(): Promise<string>;
}

export interface DiscoveryKeySourceOptions extends Omit<RemoteKeySourceOptions, 'jwksUri'> {
  /** `<issuer>/.well-known/openid-configuration`. */
  discoveryUrl: string;
  /** The configured issuer, when there is one: the document must name the same. */
  expectedIssuer?: string | undefined;
}

interface ProviderMetadata {
  issuer: string;
  jwksUri: string;
  fetchedAt: number;
}

const DEFAULTS = { timeoutMs: 3_000, cacheMaxAgeMs: 10 * 60_000, staleIfErrorMs: 24 * 60 * 60_000, retryPauseMs: 5_000 };

/**
 * The provider's keys found through OIDC discovery: the document at `discoveryUrl` names the
 * `issuer` and the `jwks_uri`, whose keys come from a remote key source (one per `jwks_uri`, so
 * its own cache and stale-if-error rules apply). The document follows the same rules as a JWKS:
 * read on first use (never at start-up), kept `cacheMaxAgeMs` (10 minutes), and when a re-read
 * fails, a document read within `staleIfErrorMs` (24 hours) keeps serving; after a failure the
 * provider is left alone for `retryPauseMs`.
 */
export function createDiscoveryKeySource(options: DiscoveryKeySourceOptions): DiscoveryKeySource {
  const url = new URL(options.discoveryUrl); // throws at start-up for a bad setting
  const { clock } = options;
  const settings = {
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    cacheMaxAgeMs: options.cacheMaxAgeMs ?? DEFAULTS.cacheMaxAgeMs,
    staleIfErrorMs: options.staleIfErrorMs ?? DEFAULTS.staleIfErrorMs,
    retryPauseMs: options.retryPauseMs ?? DEFAULTS.retryPauseMs,
  };
  const transport = options.fetch ?? fetch;

  let lastGood: ProviderMetadata | undefined;
  let lastFailure: { error: IdpUnavailableError; at: number } | undefined;
  let pending: Promise<ProviderMetadata> | undefined;
  let keys: { jwksUri: string; source: IdTokenKeySource } | undefined;

  const usableStale = (): ProviderMetadata | undefined =>
    lastGood && clock.now().getTime() - lastGood.fetchedAt <= settings.staleIfErrorMs ? lastGood : undefined;

  const fetchDocument = async (): Promise<ProviderMetadata> => {
    let response: Response;
    try {
      response = await transport(url, { redirect: 'manual', signal: AbortSignal.timeout(settings.timeoutMs), headers: { accept: 'application/json' } });
    } catch (error) {
      throw new IdpUnavailableError(transportFailure(error), { cause: error });
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new IdpUnavailableError(response.status > 0 ? `${response.status}` : 'redirect', {
        cause: new Error(`discovery endpoint answered HTTP ${response.status}`),
      });
    }
    let document: unknown;
    try {
      document = JSON.parse(await readBodyText(response, options.maxBodyBytes ?? DEFAULT_MAX_JWKS_BYTES));
    } catch (error) {
      if (error instanceof IdpUnavailableError) throw error;
      throw new IdpUnavailableError('invalid_body', { cause: new Error('discovery body is not JSON') });
    }
    const { issuer, jwks_uri: jwksUri } = (typeof document === 'object' && document !== null ? document : {}) as Record<string, unknown>;
    if (typeof issuer !== 'string' || issuer === '' || typeof jwksUri !== 'string' || !URL.canParse(jwksUri)) {
      throw new IdpUnavailableError('invalid_discovery', { cause: new Error('discovery document lacks issuer or jwks_uri') });
    }
    if (url.protocol === 'https:' && !jwksUri.startsWith('https://')) {
      throw new IdpUnavailableError('invalid_discovery', { cause: new Error('discovery document names a plain-http jwks_uri') });
    }
    if (options.expectedIssuer !== undefined && issuer !== options.expectedIssuer) {
      throw new IdpUnavailableError('issuer_mismatch', { cause: new Error('discovery document names another issuer than the configured one') });
    }
    return { issuer, jwksUri, fetchedAt: clock.now().getTime() };
  };

  const metadata = async (): Promise<ProviderMetadata> => {
    const now = clock.now().getTime();
    if (lastGood && now - lastGood.fetchedAt < settings.cacheMaxAgeMs) return lastGood;
    if (lastFailure && now - lastFailure.at < settings.retryPauseMs) {
      const stale = usableStale();
      if (stale) return stale;
      throw lastFailure.error;
    }
    // Concurrent sign-ins share one read of the document.
    pending ??= fetchDocument().finally(() => {
      pending = undefined;
    });
    const reading = pending;
    try {
      const document = await reading;
      lastGood = document;
      lastFailure = undefined;
      return document;
    } catch (error) {
      const failure = error instanceof IdpUnavailableError ? error : new IdpUnavailableError('network_error', { cause: error });
      const stale = usableStale();
      if (lastFailure?.error !== failure) {
        lastFailure = { error: failure, at: clock.now().getTime() };
        try {
          options.onProviderFailure?.({ providerStatus: failure.providerStatus, cause: failure, staleKeysAvailable: stale !== undefined });
        } catch {
          // A reporting fault must not turn into a refused sign-in.
        }
      }
      if (stale) return stale;
      throw failure;
    }
  };

  const keySourceFor = (jwksUri: string): IdTokenKeySource => {
    if (keys?.jwksUri !== jwksUri) {
      const { discoveryUrl: _discoveryUrl, expectedIssuer: _expectedIssuer, ...remoteOptions } = options;
      keys = { jwksUri, source: createRemoteKeySource({ ...remoteOptions, jwksUri }) };
    }
    return keys.source;
  };

  return {
    knownIssuer: () => options.expectedIssuer ?? usableStale()?.issuer,
    async resolveIssuer() {
      return (await metadata()).issuer;
    },
    async getKey(header: CompactJWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> {
      const { jwksUri } = await metadata();
      return keySourceFor(jwksUri).getKey(header, token);
    },
    retryAfterSeconds() {
      const since = lastFailure ? clock.now().getTime() - lastFailure.at : settings.retryPauseMs;
      const own = Math.max(1, Math.ceil((settings.retryPauseMs - since) / 1000));
      return Math.max(own, keys?.source.retryAfterSeconds() ?? 1);
    },
  };
}
