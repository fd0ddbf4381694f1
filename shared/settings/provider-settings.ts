/**
 * The settings of several identity providers (`IDP_PROVIDERS`), read by `shared/config.ts`. Each
 * provider's tokens are told apart by their `iss`, so users stay keyed by (`iss`, `sub`) whichever
 * provider signed them in. Nothing here reads the environment: `loadConfig` hands the variables in.
 */

/** How one provider's `email` claim counts as verified (see `EmailVerification` in verify-id-token.ts). */
export interface ProviderEmailVerification {
  verifiedClaim: string;
  verifiedByIssuer: boolean;
}

/** Where a provider's signing keys come from: its JWKS URL, or its OIDC discovery document. */
export type ProviderKeys = { kind: 'jwks'; jwksUri: string } | { kind: 'discovery'; discoveryUrl: string };

/** One identity provider whose ID tokens the adult sign-in accepts. */
export interface IdentityProviderSettings {
  /** A short label (`apple`, `google`, …) for configuration messages; `provider-<n>` when unset. */
  name: string;
  /**
   * The exact `iss` of its tokens. Undefined only with discovery, where the document's `issuer`
   * is used (Entra External ID's differs from its discovery URL's host).
   */
  issuer: string | undefined;
  /** Accepted `aud` values (the app's client ids at this provider): a token must name one. */
  audiences: string[];
  keys: ProviderKeys;
  /** Allowed JWS algorithms (`alg`), never `none` or HMAC. */
  algorithms: string[];
  emailVerification: ProviderEmailVerification;
  /** Refuse a token unless the sign-in sends a `nonce` that matches the token's. */
  nonceRequired: boolean;
}

/** What providers default to when they leave a field out: the single-provider settings. */
export interface ProviderDefaults {
  algorithms: string[];
  emailVerification: ProviderEmailVerification;
}

/** The fields of a numbered setting, `IDP_PROVIDERS__<n>__<FIELD>`, and their JSON names. */
export const NUMBERED_FIELDS: Readonly<Record<string, string>> = {
  NAME: 'name',
  ISSUER: 'issuer',
  AUDIENCES: 'audiences',
  JWKS_URI: 'jwksUri',
  DISCOVERY_URL: 'discoveryUrl',
  ALGORITHMS: 'algorithms',
  EMAIL_VERIFIED_CLAIM: 'emailVerifiedClaim',
  EMAIL_VERIFIED_BY_ISSUER: 'emailVerifiedByIssuer',
  NONCE_REQUIRED: 'nonceRequired',
};
const JSON_FIELDS = new Set(Object.values(NUMBERED_FIELDS));
const NUMBERED = /^IDP_PROVIDERS__(\d{1,2})__([A-Z_]+)$/i;
const DISCOVERY_SUFFIX = '/.well-known/openid-configuration';

/**
 * Reads `IDP_PROVIDERS` (a JSON array of provider objects) or the numbered settings
 * `IDP_PROVIDERS__0__ISSUER`, `IDP_PROVIDERS__0__AUDIENCES`, … (one per app setting, the way Azure
 * spells nested settings). Returns undefined when neither is set. Problems start with
 * `IDP_PROVIDERS` and name the provider by its position, never quoting a value.
 */
export function parseIdentityProviders(
  env: Readonly<Record<string, string | undefined>>,
  defaults: ProviderDefaults,
  production: boolean,
  problems: string[],
): IdentityProviderSettings[] | undefined {
  const before = problems.length;
  const raw = rawProviders(env, problems);
  if (raw === undefined) return undefined;
  if (raw.length === 0) {
    if (problems.length === before) problems.push('IDP_PROVIDERS: lists no provider');
    return [];
  }
  if (raw.length > 10) problems.push('IDP_PROVIDERS: at most 10 providers');
  const providers = raw.map((entry, index) => providerOf(entry, index, defaults, production, problems));
  const valid = providers.filter((provider): provider is IdentityProviderSettings => provider !== undefined);
  const issuers = valid.map((provider) => provider.issuer).filter((issuer): issuer is string => issuer !== undefined);
  if (new Set(issuers).size !== issuers.length) {
    problems.push('IDP_PROVIDERS: two providers have the same issuer (tokens are matched to their provider by `iss`)');
  }
  return valid;
}

function rawProviders(env: Readonly<Record<string, string | undefined>>, problems: string[]): unknown[] | undefined {
  const json = env['IDP_PROVIDERS']?.trim();
  const numbered = new Map<number, Record<string, string>>();
  for (const [key, value] of Object.entries(env)) {
    const match = NUMBERED.exec(key);
    if (!match || value === undefined || value.trim() === '') continue;
    const field = NUMBERED_FIELDS[(match[2] ?? '').toUpperCase()];
    if (!field) {
      problems.push(`IDP_PROVIDERS: unknown setting ${key.toUpperCase()} (fields: ${Object.keys(NUMBERED_FIELDS).join(', ')})`);
      continue;
    }
    const index = Number(match[1]);
    const entry = numbered.get(index) ?? {};
    entry[field] = value.trim();
    numbered.set(index, entry);
  }
  if (json && numbered.size > 0) {
    problems.push('IDP_PROVIDERS: set either the JSON list or the numbered IDP_PROVIDERS__<n>__* settings, not both');
    return [];
  }
  if (json) {
    try {
      const parsed: unknown = JSON.parse(json);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // The parser's message quotes the text; ours does not.
    }
    problems.push('IDP_PROVIDERS: must be a JSON array of provider objects');
    return [];
  }
  if (numbered.size === 0) return undefined;
  const indexes = [...numbered.keys()].sort((a, b) => a - b);
  if (indexes.some((index, position) => index !== position)) {
    problems.push('IDP_PROVIDERS: the numbered settings must count from 0 without gaps');
  }
  return indexes.map((index) => numbered.get(index));
}

function providerOf(
  entry: unknown,
  index: number,
  defaults: ProviderDefaults,
  production: boolean,
  problems: string[],
): IdentityProviderSettings | undefined {
  const where = `IDP_PROVIDERS (provider ${index})`;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    problems.push(`${where}: must be an object`);
    return undefined;
  }
  const fields = entry as Record<string, unknown>;
  const before = problems.length;
  const problem = (field: string, message: string): void => {
    problems.push(`${where}: ${field}: ${message}`);
  };
  for (const key of Object.keys(fields)) if (!JSON_FIELDS.has(key)) problem(key, 'unknown field');

  const name = text(fields['name']) ?? `provider-${index}`;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/.test(name)) problem('name', 'must be 1 to 32 of A-Z a-z 0-9 . _ -');
  const issuer = text(fields['issuer']);
  const audiences = list(fields['audiences']);
  if (audiences === undefined || audiences.length === 0) problem('audiences', 'required: the client ids the tokens are issued to');
  const jwksUri = text(fields['jwksUri']);
  const discoveryUrl = text(fields['discoveryUrl']);
  if ((jwksUri === undefined) === (discoveryUrl === undefined)) problem('jwksUri', 'set exactly one of jwksUri and discoveryUrl');
  for (const [field, url] of [['jwksUri', jwksUri], ['discoveryUrl', discoveryUrl], ['issuer', issuer]] as const) {
    if (url === undefined) continue;
    if (!URL.canParse(url)) problem(field, 'must be an absolute URL');
    else if (production && field !== 'issuer' && !url.startsWith('https://')) problem(field, 'must be an https:// URL in production');
  }
  if (discoveryUrl !== undefined && !discoveryUrl.endsWith(DISCOVERY_SUFFIX)) {
    problem('discoveryUrl', `must end with ${DISCOVERY_SUFFIX}`);
  }
  if (issuer === undefined && discoveryUrl === undefined) problem('issuer', 'required (unless discoveryUrl is set, whose document names it)');
  const algorithms = list(fields['algorithms']) ?? defaults.algorithms;
  if (algorithms.length === 0) problem('algorithms', 'must name at least one algorithm');
  if (algorithms.some(isUnsafeAlgorithm)) problem('algorithms', 'none and HMAC algorithms cannot verify provider tokens; use asymmetric algorithms');
  const verifiedClaim = text(fields['emailVerifiedClaim']) ?? defaults.emailVerification.verifiedClaim;
  if (!/^\S{1,256}$/.test(verifiedClaim)) problem('emailVerifiedClaim', 'must be a claim name (no spaces, at most 256 characters)');
  const verifiedByIssuer = flag(fields['emailVerifiedByIssuer'], defaults.emailVerification.verifiedByIssuer, () =>
    problem('emailVerifiedByIssuer', 'must be true or false'),
  );
  const nonceRequired = flag(fields['nonceRequired'], false, () => problem('nonceRequired', 'must be true or false'));
  if (problems.length > before) return undefined;

  return {
    name,
    issuer,
    audiences: audiences ?? [],
    keys: jwksUri !== undefined ? { kind: 'jwks', jwksUri } : { kind: 'discovery', discoveryUrl: discoveryUrl ?? '' },
    algorithms,
    emailVerification: { verifiedClaim, verifiedByIssuer },
    nonceRequired,
  };
}

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** A JSON array of strings, or (numbered settings) a comma-separated string. */
function list(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  return items.filter((item): item is string => typeof item === 'string').map((item) => item.trim()).filter((item) => item !== '');
}

function flag(value: unknown, fallback: boolean, invalid: () => void): boolean {
  if (value === undefined) return fallback;
  if (value === true || value === 'true' || value === '1') return true;
  if (value === false || value === 'false' || value === '0') return false;
  invalid();
  return fallback;
}

/**
 * True for an algorithm that cannot verify a provider's token: `none`, and the HMAC ones (HS*), whose
 * key would be a secret the provider shares (or, worse, its public key taken as one). Every place that
 * takes algorithms (the single-provider settings, each provider, the verifier) refuses them.
 */
export function isUnsafeAlgorithm(alg: string): boolean {
  return alg.toLowerCase() === 'none' || alg.toUpperCase().startsWith('HS');
}
