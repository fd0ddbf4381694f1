import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEV_IDP_AUDIENCE, DEV_IDP_ISSUER, type Config } from '../../config';
import { manualClock } from '../../ports/clock';
import { loadOrCreateDevIdpKeys, mintDevIdToken, PRIVATE_KEY_FILE, PUBLIC_KEY_FILE } from './dev-identity-provider';
import { createIdTokenVerifier } from './verify-id-token';

let workDir: string;
let keyDirectory: string;

beforeEach(() => {
  workDir = mkdtempSync(path.join(tmpdir(), 'dev-idp-'));
  keyDirectory = path.join(workDir, '.data', 'dev-idp');
});

afterEach(() => {
  rmSync(workDir, { recursive: true, force: true });
});

const NOW = '2031-05-04T12:00:00Z';

function devIdp(): Config['idp'] {
  return { kind: 'development', issuer: DEV_IDP_ISSUER, audience: DEV_IDP_AUDIENCE, keyDirectory, algorithms: ['RS256'] };
}

describe('the development key pair', () => {
  it('is created on first use, owner-only, and reused afterwards', async () => {
    const first = await loadOrCreateDevIdpKeys(keyDirectory);
    const privateFile = path.join(keyDirectory, PRIVATE_KEY_FILE);
    if (process.platform !== 'win32') expect(statSync(privateFile).mode & 0o777).toBe(0o600);
    const again = await loadOrCreateDevIdpKeys(keyDirectory);
    expect(again.kid).toBe(first.kid);
    expect(again.publicJwk).toEqual(first.publicJwk);
    expect(JSON.parse(readFileSync(path.join(keyDirectory, PUBLIC_KEY_FILE), 'utf8'))).toEqual(first.publicJwk);
    expect(first.publicJwk).not.toHaveProperty('d');
  });

  it('is created once when several processes race for it', async () => {
    const keys = await Promise.all(Array.from({ length: 4 }, () => loadOrCreateDevIdpKeys(keyDirectory)));
    expect(new Set(keys.map((key) => key.kid)).size).toBe(1);
    expect(JSON.parse(readFileSync(path.join(keyDirectory, PRIVATE_KEY_FILE), 'utf8')).kid).toBe(keys[0]?.kid);
  });

  it('refuses a damaged key file with a message saying what to do', async () => {
    await loadOrCreateDevIdpKeys(keyDirectory);
    writeFileSync(path.join(keyDirectory, PRIVATE_KEY_FILE), '{"kty":"oct","k":"AAAA"}');
    await expect(loadOrCreateDevIdpKeys(keyDirectory)).rejects.toThrow(/delete it/);
  });
});

describe('development ID tokens', () => {
  it('verify with the development verifier, with the verified e-mail', async () => {
    const clock = manualClock(NOW);
    const keys = await loadOrCreateDevIdpKeys(keyDirectory);
    const token = await mintDevIdToken(keys, { issuer: DEV_IDP_ISSUER, audience: DEV_IDP_AUDIENCE, sub: 'dev-alice', email: 'alice@example.org' }, clock);
    const verifier = createIdTokenVerifier({ idp: devIdp(), clock });
    expect(await verifier.verify(token)).toEqual({
      ok: true,
      claims: { issuer: DEV_IDP_ISSUER, subject: 'dev-alice', email: 'alice@example.org' },
    });
  });

  it('expire after their lifetime', async () => {
    const clock = manualClock(NOW);
    const keys = await loadOrCreateDevIdpKeys(keyDirectory);
    const token = await mintDevIdToken(keys, { issuer: DEV_IDP_ISSUER, audience: DEV_IDP_AUDIENCE, sub: 'dev-bob', ttlSeconds: 60 }, clock);
    const verifier = createIdTokenVerifier({ idp: devIdp(), clock });
    expect((await verifier.verify(token)).ok).toBe(true);
    clock.advance(91_000);
    expect(await verifier.verify(token)).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('from another key pair are refused', async () => {
    const clock = manualClock(NOW);
    const verifier = createIdTokenVerifier({ idp: devIdp(), clock });
    const strangerKeys = await loadOrCreateDevIdpKeys(path.join(workDir, 'elsewhere'));
    const token = await mintDevIdToken(strangerKeys, { issuer: DEV_IDP_ISSUER, audience: DEV_IDP_AUDIENCE, sub: 'x' }, clock);
    expect(await verifier.verify(token)).toMatchObject({ ok: false, failure: 'invalid_token', reason: 'no_matching_key' });
  });

  it('are picked up after the key pair was recreated on disk', async () => {
    const clock = manualClock(NOW);
    const verifier = createIdTokenVerifier({ idp: devIdp(), clock });
    const before = await loadOrCreateDevIdpKeys(keyDirectory);
    const first = await mintDevIdToken(before, { issuer: DEV_IDP_ISSUER, audience: DEV_IDP_AUDIENCE, sub: 'x' }, clock);
    expect((await verifier.verify(first)).ok).toBe(true);
    rmSync(keyDirectory, { recursive: true });
    const after = await loadOrCreateDevIdpKeys(keyDirectory);
    const second = await mintDevIdToken(after, { issuer: DEV_IDP_ISSUER, audience: DEV_IDP_AUDIENCE, sub: 'x' }, clock);
    expect((await verifier.verify(second)).ok).toBe(true);
  });
});
