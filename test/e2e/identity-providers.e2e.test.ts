import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CanaryTracker } from '../helpers/canaries';
import { generateSigningKey, idTokenClaims, jwksOf, mintIdToken, type TestSigningKey } from '../helpers/id-tokens';
import { startJwksServer, type JwksServer } from '../helpers/jwks-server';
import { startLocalHost, type LocalHost } from '../helpers/local-host';
import { auditRows, readRows } from '../helpers/sqlite-reader';

/**
 * Several identity providers (`IDP_PROVIDERS`) over real HTTP: an "Apple-like" provider with a
 * fixed JWKS URL that requires a nonce, and a "Google-like" one known only by its OIDC discovery
 * URL (its issuer and JWKS URL read from the document), each a server on 127.0.0.1 with its own key.
 */
const canaries = new CanaryTracker();
const APPLE_ISSUER = 'https://appleid.provider-a.test';
const APPLE_AUDIENCE = 'org.example.family';
const GOOGLE_ISSUER = 'https://accounts.provider-b.test';
const GOOGLE_AUDIENCES = ['ios-client.provider-b.test', 'android-client.provider-b.test'];
/** A subject both providers issue: the Apple-like provider's is the bootstrap admin, the other's a stranger. */
const ADMIN_SUBJECT = 'bootstrap-admin-sub-canary-0005';

let workDir: string;
let databaseFile: string;
let appleKey: TestSigningKey;
let googleKey: TestSigningKey;
let apple: JwksServer;
let google: JwksServer;
let host: LocalHost;

function appleToken(claims: Record<string, unknown>): string {
  const token = mintIdToken(appleKey, idTokenClaims({ issuer: APPLE_ISSUER, audience: APPLE_AUDIENCE, now: new Date() }, claims));
  canaries.add(token);
  return token;
}

function googleToken(claims: Record<string, unknown>, key: TestSigningKey = googleKey): string {
  const token = mintIdToken(key, idTokenClaims({ issuer: GOOGLE_ISSUER, audience: GOOGLE_AUDIENCES[0] ?? '', now: new Date() }, claims));
  canaries.add(token);
  return token;
}

async function signIn(body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${host.baseUrl}/api/v1/auth/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (typeof answer.token === 'string') canaries.add(answer.token);
  return { status: response.status, body: answer };
}

const userIdOf = (answer: { body: Record<string, unknown> }): string => String((answer.body.user as { id?: string } | undefined)?.id);
const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'identity-providers-e2e-'));
  databaseFile = path.join(workDir, 'platform.sqlite');
  appleKey = generateSigningKey();
  googleKey = generateSigningKey();
  apple = await startJwksServer(jwksOf(appleKey));
  google = await startJwksServer(jwksOf(googleKey), { issuer: GOOGLE_ISSUER });
  host = await startLocalHost({
    APP_ENV: 'test',
    SQLITE_PATH: databaseFile,
    ADULT_SIGN_IN_ADDRESS_MAX_FAILURES: '10000',
    BOOTSTRAP_ADMIN_SUBJECTS: `${APPLE_ISSUER}|${ADMIN_SUBJECT}`,
    IDP_PROVIDERS: JSON.stringify([
      { name: 'apple', issuer: APPLE_ISSUER, audiences: [APPLE_AUDIENCE], jwksUri: apple.url, nonceRequired: true },
      { name: 'google', discoveryUrl: google.discoveryUrl, audiences: GOOGLE_AUDIENCES },
    ]),
  });
});

afterAll(async () => {
  await host?.stop();
  await apple?.close();
  await google?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('several identity providers', () => {
  it('signs in with either provider; the discovered one by the issuer and keys its document names', async () => {
    google.resetCount();
    const nonce = 'apple-raw-nonce-canary-0001';
    canaries.add(nonce);
    const viaApple = await signIn({ idToken: appleToken({ sub: 'shared-sub', nonce: sha256Hex(nonce) }), nonce });
    expect(viaApple.status).toBe(200);
    const viaGoogle = await signIn({ idToken: googleToken({ sub: 'shared-sub' }) });
    expect(viaGoogle.status).toBe(200);
    // The discovery document, then the JWKS it names.
    expect(google.requestCount).toBe(2);

    // Users stay keyed by (iss, sub): the same sub at two providers is two people.
    expect(userIdOf(viaApple)).not.toBe(userIdOf(viaGoogle));
    const rows = readRows<{ issuer: string }>(databaseFile, "SELECT issuer FROM Users WHERE subject = 'shared-sub' ORDER BY issuer");
    expect(rows.map((row) => row.issuer).sort()).toEqual([APPLE_ISSUER, GOOGLE_ISSUER].sort());
    const again = await signIn({ idToken: googleToken({ sub: 'shared-sub' }) });
    expect(userIdOf(again)).toBe(userIdOf(viaGoogle));
  });

  it("accepts any of a provider's audiences, and no other", async () => {
    const second = mintIdToken(googleKey, idTokenClaims({ issuer: GOOGLE_ISSUER, audience: GOOGLE_AUDIENCES[1] ?? '', now: new Date() }, { sub: 'aud-2' }));
    expect((await signIn({ idToken: second })).status).toBe(200);
    const foreign = mintIdToken(googleKey, idTokenClaims({ issuer: GOOGLE_ISSUER, audience: APPLE_AUDIENCE, now: new Date() }, { sub: 'aud-3' }));
    expect(await signIn({ idToken: foreign })).toMatchObject({ status: 401, body: { code: 'invalid_token' } });
  });

  it("refuses a token signed with the other provider's key, and an issuer no provider has", async () => {
    const crossSigned = googleToken({ sub: 'mallory' }, appleKey);
    expect(await signIn({ idToken: crossSigned })).toMatchObject({ status: 401, body: { code: 'invalid_token' } });
    const unknown = mintIdToken(appleKey, idTokenClaims({ issuer: 'https://elsewhere.test', audience: APPLE_AUDIENCE, now: new Date() }, {}));
    expect(await signIn({ idToken: unknown })).toMatchObject({ status: 401, body: { code: 'invalid_token' } });
    const checks = auditRows(databaseFile)
      .filter((row) => row.eventType === 'authn_login_fail')
      .map((row) => (JSON.parse(String(row.details ?? '{}')) as { check?: string }).check);
    expect(checks).toEqual(expect.arrayContaining(['no_matching_key', 'unknown_issuer']));
  });

  describe('nonce', () => {
    it('Apple on iOS: the token carries the SHA-256 hex of the nonce the app sends', async () => {
      const nonce = 'ios-raw-nonce-canary-0002';
      canaries.add(nonce);
      expect((await signIn({ idToken: appleToken({ sub: 'apple-1', nonce: sha256Hex(nonce) }), nonce })).status).toBe(200);
    });

    it('Google native: the token carries the nonce as the app sends it', async () => {
      const nonce = 'android-nonce-canary-0003';
      canaries.add(nonce);
      expect((await signIn({ idToken: googleToken({ sub: 'google-1', nonce }), nonce })).status).toBe(200);
      expect((await signIn({ idToken: appleToken({ sub: 'apple-2', nonce }), nonce })).status).toBe(200);
    });

    it('refuses a nonce that matches neither form, a token without one when a nonce is sent, and none where required', async () => {
      const nonce = 'mismatch-nonce-canary-0004';
      canaries.add(nonce);
      const wrong = await signIn({ idToken: appleToken({ sub: 'apple-3', nonce: sha256Hex('another nonce') }), nonce });
      expect(wrong).toMatchObject({ status: 401, body: { code: 'invalid_token' } });
      const withoutClaim = await signIn({ idToken: googleToken({ sub: 'google-2' }), nonce });
      expect(withoutClaim).toMatchObject({ status: 401, body: { code: 'invalid_token' } });
      // The Apple-like provider requires one: a token replayed without the app's nonce is refused.
      const missing = await signIn({ idToken: appleToken({ sub: 'apple-4', nonce: sha256Hex(nonce) }) });
      expect(missing).toMatchObject({ status: 401, body: { code: 'invalid_token' } });
      // The Google-like one does not: a token with a nonce and a sign-in without one passes.
      expect((await signIn({ idToken: googleToken({ sub: 'google-3', nonce }) })).status).toBe(200);
      const reasons = auditRows(databaseFile)
        .filter((row) => row.eventType === 'authn_login_fail')
        .map((row) => JSON.parse(String(row.details ?? '{}')) as Record<string, unknown>);
      expect(JSON.stringify(reasons)).toMatch(/nonce_mismatch/);
      expect(JSON.stringify(reasons)).toMatch(/nonce_missing/);
    });

    it('takes the nonce as a string of 1 to 512 characters', async () => {
      for (const nonce of ['', 'x'.repeat(513), 42]) {
        expect(await signIn({ idToken: googleToken({ sub: 'google-4' }), nonce })).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
      }
    });
  });

  it("makes the bootstrap admin of the listed issuer only, not another provider's user with the same sub", async () => {
    canaries.add(ADMIN_SUBJECT);
    // The other provider's first sign-in comes first: matched by `sub` alone it would become admin.
    const stranger = await signIn({ idToken: googleToken({ sub: ADMIN_SUBJECT }) });
    expect(stranger).toMatchObject({ status: 200, body: { user: { role: 'member' } } });
    const nonce = 'admin-nonce-canary-0006';
    canaries.add(nonce);
    const admin = await signIn({ idToken: appleToken({ sub: ADMIN_SUBJECT, nonce: sha256Hex(nonce) }), nonce });
    expect(admin).toMatchObject({ status: 200, body: { user: { role: 'admin', status: 'active' } } });
    const rows = readRows<{ issuer: string; role: string; status: string }>(
      databaseFile,
      `SELECT issuer, role, status FROM Users WHERE subject = '${ADMIN_SUBJECT}' ORDER BY issuer`,
    );
    expect(rows).toEqual(
      [
        { issuer: APPLE_ISSUER, role: 'admin', status: 'active' },
        { issuer: GOOGLE_ISSUER, role: 'member', status: 'active' },
      ].sort((a, b) => a.issuer.localeCompare(b.issuer)),
    );
  });

  it('writes no token, nonce or session anywhere', () => {
    expect(host.invalidLines).toEqual([]);
    expect(canaries.findIn(host.stdout.join('\n'))).toEqual([]);
    expect(canaries.findIn(JSON.stringify(auditRows(databaseFile)))).toEqual([]);
  });
});
