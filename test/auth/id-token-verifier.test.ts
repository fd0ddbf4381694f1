import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../shared/config';
import { manualClock } from '../../shared/ports/clock';
import { createIdTokenVerifier, type IdTokenVerification } from '../../shared/auth/id-token/verify-id-token';
import { attackTokens, generateSigningKey, idTokenClaims, jwksOf, mintIdToken, type TestSigningKey } from '../helpers/id-tokens';
import { startJwksServer, type JwksServer } from '../helpers/jwks-server';

/** The verifier against a real JWKS endpoint on 127.0.0.1: good tokens pass, every forgery fails as a 401. */
const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'community-platform';
const NOW = new Date('2031-05-04T12:00:00Z');

let server: JwksServer;
let rsaKey: TestSigningKey;
let ecKey: TestSigningKey;

beforeAll(async () => {
  rsaKey = generateSigningKey({ alg: 'RS256', kid: 'rsa-1' });
  ecKey = generateSigningKey({ alg: 'ES256', kid: 'ec-1' });
  server = await startJwksServer(jwksOf(rsaKey, ecKey));
});

afterAll(async () => {
  await server?.close();
});

function remoteIdp(algorithms: string[] = ['RS256']): Config['idp'] {
  return { kind: 'remote', issuer: ISSUER, audience: AUDIENCE, jwksUri: server.url, algorithms };
}

function verifierAt(now: Date, algorithms?: string[]) {
  return createIdTokenVerifier({ idp: remoteIdp(algorithms), clock: manualClock(now) });
}

const context = { issuer: ISSUER, audience: AUDIENCE, now: NOW };

describe('a valid ID token', () => {
  it('yields the issuer and subject', async () => {
    const result = await verifierAt(NOW).verify(mintIdToken(rsaKey, idTokenClaims(context, { sub: 'alice' })));
    expect(result).toEqual({ ok: true, claims: { issuer: ISSUER, subject: 'alice' } });
  });

  it('takes our audience as a string or a one-element array (no azp needed), or among several with azp naming it (OIDC Core 3.1.3.7)', async () => {
    const verifier = verifierAt(NOW);
    const accepted = { ok: true, claims: { issuer: ISSUER, subject: 'alice' } };
    const verify = (claims: Record<string, unknown>) => verifier.verify(mintIdToken(rsaKey, idTokenClaims(context, { sub: 'alice', ...claims })));
    expect(await verify({ aud: AUDIENCE })).toEqual(accepted);
    expect(await verify({ aud: [AUDIENCE] })).toEqual(accepted);
    // One audience: azp is not compared (Google's native sign-in: aud the web client, azp the app's own).
    expect(await verify({ aud: AUDIENCE, azp: 'android-client' })).toEqual(accepted);
    expect(await verify({ aud: [AUDIENCE, 'another-app'], azp: AUDIENCE })).toEqual(accepted);
    expect(await verify({ aud: ['another-app', AUDIENCE], azp: AUDIENCE })).toEqual(accepted);
    // And each refusal, for its reason.
    expect(await verify({ aud: 'another-app' })).toMatchObject({ ok: false, reason: 'wrong_audience' });
    expect(await verify({ aud: [AUDIENCE, 'another-app'] })).toMatchObject({ ok: false, reason: 'azp_missing' });
    expect(await verify({ aud: [AUDIENCE, 'another-app'], azp: 'another-app' })).toMatchObject({ ok: false, reason: 'azp_mismatch' });
    expect(await verify({ aud: ['another-app', 'third-app'], azp: AUDIENCE })).toMatchObject({ ok: false, reason: 'wrong_audience' });
  });

  it('surfaces e-mail and phone only when the provider verified them', async () => {
    const verifier = verifierAt(NOW);
    const verified = await verifier.verify(
      mintIdToken(
        rsaKey,
        idTokenClaims(context, { email: 'a@example.org', email_verified: true, phone_number: '+15551234567', phone_number_verified: true }),
      ),
    );
    expect(verified).toEqual({
      ok: true,
      claims: { issuer: ISSUER, subject: 'user-123', email: 'a@example.org', phone: '+15551234567' },
    });
    for (const flags of [
      { email_verified: false, phone_number_verified: 'false' },
      { email_verified: 'yes', phone_number_verified: 1 },
      { email_verified: 'TRUE', phone_number_verified: null },
      {},
    ]) {
      const unverified = await verifier.verify(
        mintIdToken(rsaKey, idTokenClaims(context, { email: 'a@example.org', phone_number: '+15551234567', ...flags })),
      );
      expect(unverified).toEqual({ ok: true, claims: { issuer: ISSUER, subject: 'user-123' } });
    }
  });

  it('takes the string "true" as Apple sends it', async () => {
    const verified = await verifierAt(NOW).verify(
      mintIdToken(rsaKey, idTokenClaims(context, { email: 'A@Example.org', email_verified: 'true' })),
    );
    expect(verified).toEqual({ ok: true, claims: { issuer: ISSUER, subject: 'user-123', email: 'a@example.org' } });
  });

  it('reads the verified flag of e-mail from the configured claim (Entra ID: xms_edov)', async () => {
    const verifier = createIdTokenVerifier({
      idp: remoteIdp(),
      clock: manualClock(NOW),
      emailVerification: { verifiedClaim: 'xms_edov', verifiedByIssuer: false },
    });
    const mint = (extra: Record<string, unknown>) => mintIdToken(rsaKey, idTokenClaims(context, { email: 'a@example.org', ...extra }));
    expect(await verifier.verify(mint({ xms_edov: true }))).toMatchObject({ ok: true, claims: { email: 'a@example.org' } });
    // The OIDC flag alone no longer counts: the configured claim is the one that speaks.
    expect(await verifier.verify(mint({ email_verified: true }))).toEqual({ ok: true, claims: { issuer: ISSUER, subject: 'user-123' } });
    expect(await verifier.verify(mint({ xms_edov: false }))).toEqual({ ok: true, claims: { issuer: ISSUER, subject: 'user-123' } });
  });

  it('trusts an issuer that verifies every address it sends only where the flag is absent (Entra External ID)', async () => {
    const verifier = createIdTokenVerifier({
      idp: remoteIdp(),
      clock: manualClock(NOW),
      emailVerification: { verifiedClaim: 'email_verified', verifiedByIssuer: true },
    });
    const mint = (extra: Record<string, unknown>) => mintIdToken(rsaKey, idTokenClaims(context, { email: 'a@example.org', ...extra }));
    expect(await verifier.verify(mint({}))).toMatchObject({ ok: true, claims: { email: 'a@example.org' } });
    expect(await verifier.verify(mint({ email_verified: false }))).toEqual({ ok: true, claims: { issuer: ISSUER, subject: 'user-123' } });
    expect(await verifier.verify(mint({ email: 'not an address' }))).toEqual({ ok: true, claims: { issuer: ISSUER, subject: 'user-123' } });
    // Phone numbers keep OIDC's own flag: the issuer's trust covers e-mail only.
    const phoneOnly = mintIdToken(rsaKey, idTokenClaims(context, { phone_number: '+15551234567' }));
    expect(await verifier.verify(phoneOnly)).toEqual({ ok: true, claims: { issuer: ISSUER, subject: 'user-123' } });
  });

  it('passes within the 30 s tolerance and fails just past it', async () => {
    const iat = Math.floor(NOW.getTime() / 1000);
    const expiredBy30 = mintIdToken(rsaKey, idTokenClaims(context, { iat: iat - 600, exp: iat - 30 }));
    // jose counts `exp <= now - tolerance` as expired, so 29 s past exp is the last accepted second.
    const expiredBy29 = mintIdToken(rsaKey, idTokenClaims(context, { iat: iat - 600, exp: iat - 29 }));
    const nbfIn30 = mintIdToken(rsaKey, idTokenClaims(context, { nbf: iat + 30 }));
    const verifier = verifierAt(NOW);
    expect((await verifier.verify(expiredBy29)).ok).toBe(true);
    expect(await verifier.verify(expiredBy30)).toMatchObject({ ok: false, reason: 'expired' });
    expect((await verifier.verify(nbfIn30)).ok).toBe(true);
  });

  it('takes the time from the injected clock', async () => {
    const token = mintIdToken(rsaKey, idTokenClaims(context));
    const clock = manualClock(NOW);
    const verifier = createIdTokenVerifier({ idp: remoteIdp(), clock });
    expect((await verifier.verify(token)).ok).toBe(true);
    clock.advance(3600_000 + 31_000);
    expect(await verifier.verify(token)).toMatchObject({ ok: false, failure: 'invalid_token', reason: 'expired' });
  });

  it('accepts each allowed algorithm and no other', async () => {
    const ecToken = mintIdToken(ecKey, idTokenClaims(context));
    expect((await verifierAt(NOW, ['RS256', 'ES256']).verify(ecToken)).ok).toBe(true);
    expect(await verifierAt(NOW, ['RS256']).verify(ecToken)).toMatchObject({ ok: false, reason: 'alg_not_allowed' });
  });

  it('verifies a token without kid by trying each key that fits', async () => {
    const second = generateSigningKey({ alg: 'RS256', kid: 'rsa-2' });
    server.setKeys(jwksOf(rsaKey, second, ecKey));
    try {
      const verifier = verifierAt(NOW);
      const withoutKid = mintIdToken(second, idTokenClaims(context), { kid: undefined });
      expect((await verifier.verify(withoutKid)).ok).toBe(true);
      const forged = mintIdToken(generateSigningKey(), idTokenClaims(context), { kid: undefined });
      expect(await verifier.verify(forged)).toMatchObject({ ok: false, reason: 'bad_signature' });
    } finally {
      server.setKeys(jwksOf(rsaKey, ecKey));
    }
  });
});

describe('the attack catalogue', () => {
  for (const alg of ['RS256', 'ES256'] as const) {
    it(`refuses every forged or broken ${alg} token as invalid_token, for its own defect`, async () => {
      const key = alg === 'RS256' ? rsaKey : ecKey;
      const verifier = verifierAt(NOW, [alg]);
      // The catalogue's base token must pass, or every "refused" below would prove nothing.
      expect((await verifier.verify(mintIdToken(key, idTokenClaims(context)))).ok).toBe(true);

      const attacks = attackTokens(key, context);
      expect(attacks.length).toBeGreaterThan(60);
      const outcomes: Record<string, IdTokenVerification | string> = {};
      for (const attack of attacks) {
        outcomes[attack.name] = await verifier.verify(attack.token).catch((error: unknown) => `threw ${String(error)}`);
      }
      for (const attack of attacks) {
        const outcome = outcomes[attack.name];
        expect(outcome, attack.name).toMatchObject({ ok: false, failure: 'invalid_token' });
        if (attack.expectedReason) expect(outcome, attack.name).toMatchObject({ reason: attack.expectedReason });
      }
    });
  }

  it('refuses a 20 KiB token without fetching keys', async () => {
    server.resetCount();
    const verifier = verifierAt(NOW);
    const big = attackTokens(rsaKey, context).find((attack) => attack.name === '20 KiB token');
    expect(big?.token.length).toBeGreaterThan(20 * 1024);
    expect(await verifier.verify(big?.token ?? '')).toEqual({ ok: false, failure: 'invalid_token', reason: 'oversized' });
    expect(server.requestCount).toBe(0);
  });

  it('never throws for input that is not a string', async () => {
    const verifier = verifierAt(NOW);
    for (const input of [undefined, null, 42, {}, ['a.b.c']]) {
      expect(await verifier.verify(input as unknown as string)).toMatchObject({ ok: false, reason: 'malformed' });
    }
  });
});

describe('settings the verifier refuses at start-up', () => {
  it.each([
    ['an HMAC algorithm', { algorithms: ['RS256', 'HS256'] }],
    ['alg none', { algorithms: ['none'] }],
    ['no algorithm', { algorithms: [] }],
    ['an empty issuer', { issuer: '' }],
    ['an empty audience', { audience: '' }],
    ['a JWKS URL that is not one', { jwksUri: 'not a url' }],
  ])('%s', (_label, change) => {
    expect(() => createIdTokenVerifier({ idp: { ...remoteIdp(), ...change } as Config['idp'], clock: manualClock(NOW) })).toThrow(TypeError);
  });

  it('a clock tolerance over 30 s', () => {
    expect(() => createIdTokenVerifier({ idp: remoteIdp(), clock: manualClock(NOW), clockToleranceSeconds: 31 })).toThrow(TypeError);
  });
});
