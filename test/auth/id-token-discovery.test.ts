import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IdentityProviderSettings } from '../../shared/settings/provider-settings';
import type { ProviderFailureReport } from '../../shared/auth/id-token/provider-failure';
import { createIdTokenVerifier } from '../../shared/auth/id-token/verify-id-token';
import { manualClock, type ManualClock } from '../../shared/ports/clock';
import { generateSigningKey, idTokenClaims, jwksOf, mintIdToken, type TestSigningKey } from '../helpers/id-tokens';
import { startJwksServer, type JwksServer } from '../helpers/jwks-server';

/**
 * Providers found through OIDC discovery and the choice among several providers: the document is
 * read on first use, kept 10 minutes, survived for 24 hours when the provider fails
 * (stale-if-error), and a configured issuer must be the document's.
 */
const ISSUER = 'https://discovered.example.test';
const OTHER_ISSUER = 'https://fixed.example.test';
const AUDIENCE = 'community-platform';
const START = new Date('2031-05-04T12:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let server: JwksServer;
let other: JwksServer;
let key: TestSigningKey;
let otherKey: TestSigningKey;
let clock: ManualClock;
let reports: ProviderFailureReport[];

beforeAll(async () => {
  key = generateSigningKey();
  otherKey = generateSigningKey();
  server = await startJwksServer(jwksOf(key), { issuer: ISSUER });
  other = await startJwksServer(jwksOf(otherKey));
});

afterAll(async () => {
  await server?.close();
  await other?.close();
});

beforeEach(async () => {
  await server.setMode('ok');
  server.resetCount();
  clock = manualClock(START);
  reports = [];
});

function discovered(overrides: Partial<IdentityProviderSettings> = {}): IdentityProviderSettings {
  return {
    name: 'discovered',
    issuer: undefined,
    audiences: [AUDIENCE],
    keys: { kind: 'discovery', discoveryUrl: server.discoveryUrl },
    algorithms: ['RS256'],
    emailVerification: { verifiedClaim: 'email_verified', verifiedByIssuer: false },
    nonceRequired: false,
    ...overrides,
  };
}

const fixed: () => IdentityProviderSettings = () => ({
  ...discovered({ name: 'fixed', issuer: OTHER_ISSUER, keys: { kind: 'jwks', jwksUri: other.url } }),
});

function verifier(...providers: IdentityProviderSettings[]) {
  return createIdTokenVerifier({
    idp: { kind: 'providers', providers },
    clock,
    onProviderFailure: (report) => reports.push(report),
    jwks: { timeoutMs: 300 },
  });
}

const token = (issuer = ISSUER, signer = key): string => mintIdToken(signer, idTokenClaims({ issuer, audience: AUDIENCE, now: clock.now() }));

describe('a provider known by its discovery URL', () => {
  it('reads the document on first use only, then its jwks_uri; keeps it 10 minutes', async () => {
    const idTokens = verifier(discovered());
    expect(server.requestCount).toBe(0);
    expect(await idTokens.verify(token())).toMatchObject({ ok: true, claims: { issuer: ISSUER } });
    expect(server.requestCount).toBe(2);
    clock.advance(9 * MINUTE);
    expect((await idTokens.verify(token())).ok).toBe(true);
    expect(server.requestCount).toBe(2);
    clock.advance(2 * MINUTE);
    expect((await idTokens.verify(token())).ok).toBe(true);
    expect(server.requestCount).toBe(3); // the document again; the keys are still in jose's cache
  });

  it('keeps a document read in the last 24 hours when the provider fails, then gives idp_unavailable', async () => {
    const idTokens = verifier(discovered());
    expect((await idTokens.verify(token())).ok).toBe(true);
    await server.setMode('status_500');
    clock.advance(23 * HOUR);
    expect((await idTokens.verify(token())).ok).toBe(true);
    expect(reports).toEqual([expect.objectContaining({ providerStatus: '500', staleKeysAvailable: true })]);
    clock.advance(2 * HOUR);
    expect(await idTokens.verify(token())).toMatchObject({ ok: false, failure: 'idp_unavailable', providerStatus: '500' });
    expect(reports).toHaveLength(2);
    await server.setMode('ok');
    expect((await idTokens.verify(token())).ok).toBe(false); // the provider is left alone for 5 s after a failure
    clock.advance(5_000);
    expect((await idTokens.verify(token())).ok).toBe(true);
  });

  it('without any document, an outage is idp_unavailable, never invalid_token', async () => {
    await server.setMode('not_json');
    expect(await verifier(discovered()).verify(token())).toMatchObject({ ok: false, failure: 'idp_unavailable', providerStatus: 'invalid_body' });
  });

  it('refuses to serve a document naming another issuer than the configured one', async () => {
    const result = await verifier(discovered({ issuer: 'https://configured.example.test' })).verify(token('https://configured.example.test'));
    expect(result).toMatchObject({ ok: false, failure: 'idp_unavailable', providerStatus: 'issuer_mismatch' });
    const matching = await verifier(discovered({ issuer: ISSUER })).verify(token());
    expect(matching.ok).toBe(true);
  });
});

describe('several providers', () => {
  it("verifies each token against its issuer's provider only", async () => {
    const idTokens = verifier(fixed(), discovered());
    expect(await idTokens.verify(token(OTHER_ISSUER, otherKey))).toMatchObject({ ok: true, claims: { issuer: OTHER_ISSUER } });
    expect(await idTokens.verify(token(ISSUER, key))).toMatchObject({ ok: true, claims: { issuer: ISSUER } });
    expect(await idTokens.verify(token(OTHER_ISSUER, key))).toMatchObject({ ok: false, reason: 'no_matching_key' });
    expect(await idTokens.verify(token('https://nobody.example.test', key))).toMatchObject({ ok: false, reason: 'unknown_issuer' });
  });

  it('an unknown issuer while a discovered provider cannot be read may be that provider: idp_unavailable', async () => {
    await server.setMode('status_500');
    const idTokens = verifier(fixed(), discovered());
    expect((await idTokens.verify(token(OTHER_ISSUER, otherKey))).ok).toBe(true);
    expect(await idTokens.verify(token(ISSUER, key))).toMatchObject({ ok: false, failure: 'idp_unavailable' });
  });

  it('checks the nonce per provider rule: as sent or its SHA-256 hex; required where configured', async () => {
    const idTokens = verifier(fixed(), discovered({ nonceRequired: true }));
    const withNonce = (nonce: string) => mintIdToken(key, idTokenClaims({ issuer: ISSUER, audience: AUDIENCE, now: clock.now() }, { nonce }));
    const hex = 'a3f1cf5e7a0e2c0e7dfb1e4bb1ad4f8fe0f6b7eb5d0b6f6c1c54f2d63d3ba2c4';
    expect(await idTokens.verify(withNonce('n-1'), { nonce: 'n-1' })).toMatchObject({ ok: true });
    expect(await idTokens.verify(withNonce('n-1'))).toMatchObject({ ok: false, reason: 'nonce_missing' });
    expect(await idTokens.verify(withNonce(hex), { nonce: 'n-1' })).toMatchObject({ ok: false, reason: 'nonce_mismatch' });
    const { createHash } = await import('node:crypto');
    const hashed = createHash('sha256').update('raw nonce').digest('hex');
    expect(await idTokens.verify(withNonce(hashed.toUpperCase()), { nonce: 'raw nonce' })).toMatchObject({ ok: true });
    expect(await idTokens.verify(token(OTHER_ISSUER, otherKey), { nonce: 'n-2' })).toMatchObject({ ok: false, reason: 'nonce_mismatch' });
    expect((await idTokens.verify(token(OTHER_ISSUER, otherKey))).ok).toBe(true);
  });
});
