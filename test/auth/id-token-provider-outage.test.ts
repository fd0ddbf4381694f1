import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../shared/config';
import { manualClock, type ManualClock } from '../../shared/ports/clock';
import type { ProviderFailureReport } from '../../shared/auth/id-token/provider-failure';
import { createIdTokenVerifier, type IdTokenVerifierOptions } from '../../shared/auth/id-token/verify-id-token';
import { generateSigningKey, idTokenClaims, jwksOf, mintIdToken, type TestSigningKey } from '../helpers/id-tokens';
import { startJwksServer, type JwksServer, type JwksServerMode } from '../helpers/jwks-server';

/**
 * The provider's JWKS endpoint failing in each way it can: told apart from bad tokens
 * (`idp_unavailable`, never `invalid_token`), reported once per failed fetch, and survived with
 * keys fetched in the last 24 hours (stale-if-error).
 */
const ISSUER = 'https://idp.example.test';
const AUDIENCE = 'community-platform';
const START = new Date('2031-05-04T12:00:00Z');
const HOUR = 3600_000;

let server: JwksServer;
let key: TestSigningKey;
let clock: ManualClock;
let reports: ProviderFailureReport[];

beforeAll(async () => {
  key = generateSigningKey({ kid: 'k1' });
  server = await startJwksServer(jwksOf(key));
});

afterAll(async () => {
  await server?.close();
});

beforeEach(async () => {
  await server.setMode('ok');
  server.setKeys(jwksOf(key));
  server.resetCount();
  clock = manualClock(START);
  reports = [];
});

/** `cacheMaxAgeMs: 0` makes jose refetch on every verification, so each one meets the outage. */
function verifier(jwks: IdTokenVerifierOptions['jwks'] = {}) {
  const idp: Config['idp'] = { kind: 'remote', issuer: ISSUER, audience: AUDIENCE, jwksUri: server.url, algorithms: ['RS256'] };
  return createIdTokenVerifier({
    idp,
    clock,
    onProviderFailure: (report) => reports.push(report),
    jwks: { timeoutMs: 300, cacheMaxAgeMs: 0, retryPauseMs: 0, ...jwks },
  });
}

/** A token valid at the clock's current time. */
function token(): string {
  return mintIdToken(key, idTokenClaims({ issuer: ISSUER, audience: AUDIENCE, now: clock.now() }));
}

const outages: [JwksServerMode, string][] = [
  ['status_500', '500'],
  ['redirect', '302'],
  ['not_json', 'invalid_body'],
  ['invalid_jwks', 'invalid_jwks'],
  ['oversized', 'body_too_large'],
  ['hang', 'timeout'],
  ['closed', 'network_error'],
];

describe('without cached keys', () => {
  for (const [mode, providerStatus] of outages) {
    it(`${mode}: idp_unavailable with status ${providerStatus}, reported once`, async () => {
      await server.setMode(mode);
      const started = Date.now();
      const result = await verifier().verify(token());
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(result).toMatchObject({ ok: false, failure: 'idp_unavailable', providerStatus, retryAfterSeconds: 1 });
      expect(reports).toEqual([{ providerStatus, cause: expect.any(Error), staleKeysAvailable: false }]);
      if (mode !== 'closed') expect(server.requestCount).toBe(1);
    });
  }

  it('does not follow the redirect', async () => {
    await server.setMode('redirect');
    await verifier().verify(token());
    expect(server.requestCount).toBe(1); // the redirect target would have been a second request
    expect(reports[0]?.providerStatus).toBe('302');
  });

  it('a forged token during the outage is still not accepted', async () => {
    await server.setMode('status_500');
    const forged = mintIdToken(generateSigningKey({ kid: 'k1' }), idTokenClaims({ issuer: ISSUER, audience: AUDIENCE, now: clock.now() }));
    expect((await verifier().verify(forged)).ok).toBe(false);
  });
});

describe('with keys fetched before the outage (stale-if-error)', () => {
  for (const [mode, providerStatus] of outages) {
    it(`${mode}: sign-in keeps working, and the failure is still reported`, async () => {
      const idTokens = verifier();
      expect((await idTokens.verify(token())).ok).toBe(true);
      await server.setMode(mode);
      clock.advance(HOUR);
      const requestsBefore = server.requestCount;
      expect(await idTokens.verify(token())).toMatchObject({ ok: true, claims: { subject: 'user-123' } });
      if (mode !== 'closed') expect(server.requestCount).toBe(requestsBefore + 1); // it did try the provider
      expect(reports).toEqual([{ providerStatus, cause: expect.any(Error), staleKeysAvailable: true }]);
    });
  }

  it('stale keys still refuse bad tokens as invalid_token', async () => {
    const idTokens = verifier();
    expect((await idTokens.verify(token())).ok).toBe(true);
    await server.setMode('status_500');
    const forged = mintIdToken(generateSigningKey({ kid: 'k1' }), idTokenClaims({ issuer: ISSUER, audience: AUDIENCE, now: clock.now() }));
    expect(await idTokens.verify(forged)).toMatchObject({ ok: false, failure: 'invalid_token', reason: 'bad_signature' });
    const wrongAudience = mintIdToken(key, idTokenClaims({ issuer: ISSUER, audience: 'other', now: clock.now() }));
    expect(await idTokens.verify(wrongAudience)).toMatchObject({ ok: false, failure: 'invalid_token', reason: 'wrong_audience' });
  });

  it('a token for a key the stale set lacks gets idp_unavailable (the provider may have rotated)', async () => {
    const idTokens = verifier();
    expect((await idTokens.verify(token())).ok).toBe(true);
    await server.setMode('status_500');
    const rotated = generateSigningKey({ kid: 'k2' });
    const result = await idTokens.verify(mintIdToken(rotated, idTokenClaims({ issuer: ISSUER, audience: AUDIENCE, now: clock.now() })));
    expect(result).toMatchObject({ ok: false, failure: 'idp_unavailable', providerStatus: '500' });
  });

  it('keys fetched 24 hours ago still count; older keys do not', async () => {
    const idTokens = verifier();
    expect((await idTokens.verify(token())).ok).toBe(true);
    await server.setMode('status_500');
    clock.advance(24 * HOUR);
    expect((await idTokens.verify(token())).ok).toBe(true);
    clock.advance(1_000);
    expect(await idTokens.verify(token())).toMatchObject({ ok: false, failure: 'idp_unavailable', providerStatus: '500' });
    expect(reports.map((report) => report.staleKeysAvailable)).toEqual([true, false]);
  });

  it('the age counts from the last successful fetch', async () => {
    const idTokens = verifier();
    expect((await idTokens.verify(token())).ok).toBe(true);
    clock.advance(20 * HOUR);
    expect((await idTokens.verify(token())).ok).toBe(true); // refetched: the stale window restarts
    await server.setMode('closed');
    clock.advance(20 * HOUR);
    expect((await idTokens.verify(token())).ok).toBe(true);
  });
});

describe('pacing and recovery', () => {
  it('after a failure, requests within the retry pause do not wait for the provider', async () => {
    const idTokens = verifier({ retryPauseMs: 5_000 });
    expect((await idTokens.verify(token())).ok).toBe(true);
    await server.setMode('hang');
    expect((await idTokens.verify(token())).ok).toBe(true); // waited for the 300 ms timeout once
    const started = Date.now();
    for (let index = 0; index < 5; index += 1) expect((await idTokens.verify(token())).ok).toBe(true);
    expect(Date.now() - started).toBeLessThan(250);
    expect(reports).toHaveLength(1);
  });

  it('without stale keys, Retry-After is the rest of the pause', async () => {
    await server.setMode('status_500');
    const idTokens = verifier({ retryPauseMs: 10_000 });
    expect(await idTokens.verify(token())).toMatchObject({ failure: 'idp_unavailable', retryAfterSeconds: 10 });
    clock.advance(6_500);
    expect(await idTokens.verify(token())).toMatchObject({ failure: 'idp_unavailable', providerStatus: '500', retryAfterSeconds: 4 });
    expect(server.requestCount).toBe(1);
  });

  it('uses the provider again once it is back', async () => {
    await server.setMode('status_500');
    const idTokens = verifier({ retryPauseMs: 5_000 });
    expect((await idTokens.verify(token())).ok).toBe(false);
    await server.setMode('ok');
    clock.advance(5_000);
    expect((await idTokens.verify(token())).ok).toBe(true);
    expect(server.requestCount).toBe(2);
  });

  it('concurrent requests share one fetch and one report', async () => {
    await server.setMode('status_500');
    const idTokens = verifier({ retryPauseMs: 5_000 });
    const results = await Promise.all(Array.from({ length: 5 }, () => idTokens.verify(token())));
    expect(results.every((result) => !result.ok && result.failure === 'idp_unavailable')).toBe(true);
    expect(server.requestCount).toBe(1);
    expect(reports).toHaveLength(1);
  });

  it('with the default cache age, a healthy provider is asked once for many sign-ins', async () => {
    const idTokens = verifier({ cacheMaxAgeMs: undefined });
    for (let index = 0; index < 5; index += 1) expect((await idTokens.verify(token())).ok).toBe(true);
    expect(server.requestCount).toBe(1);
  });
});
