import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../../ports/clock';
import { loadJose, type CryptoKey, type JSONWebKeySet, type JWK } from './jose';

/**
 * The development identity provider: an RS256 key pair kept under `.data/dev-idp/`, made on first
 * use, that the app trusts when it runs outside production without `IDP_JWKS_URI`. Its tokens
 * are minted by `npm run dev:token`. Nothing here is meant to be secret beyond the developer's
 * machine; the private key file is still readable by its owner only.
 */

export const DEV_IDP_ALGORITHM = 'RS256';
export const PRIVATE_KEY_FILE = 'private-key.jwk.json';
export const PUBLIC_KEY_FILE = 'public-key.jwk.json';

export interface DevIdpKeys {
  kid: string;
  privateKey: CryptoKey;
  /** The public half as a JWK with `kid`, `alg` and `use`, ready for a key set. */
  publicJwk: JWK;
}

/**
 * Reads the key pair from `keyDirectory`, creating it first when absent. Creation is atomic (the
 * private key appears complete or not at all), so the app and `dev:token` may race for it safely.
 */
export async function loadOrCreateDevIdpKeys(keyDirectory: string): Promise<DevIdpKeys> {
  const privateFile = path.join(keyDirectory, PRIVATE_KEY_FILE);
  let privateJwk = await readPrivateJwk(privateFile);
  if (!privateJwk) {
    await mkdir(keyDirectory, { recursive: true, mode: 0o700 });
    privateJwk = await createPrivateJwk(privateFile);
  }
  const keys = await importKeys(privateJwk, privateFile);
  // A copy for other tools (e.g. to serve as a JWKS); the app itself reads only the private file.
  await writeFile(path.join(keyDirectory, PUBLIC_KEY_FILE), `${JSON.stringify(keys.publicJwk, null, 2)}\n`, { flag: 'wx' }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    },
  );
  return keys;
}

/** The key set the development verifier trusts. */
export function devIdpJwks(keys: DevIdpKeys): JSONWebKeySet {
  return { keys: [keys.publicJwk] };
}

export interface DevIdTokenClaims {
  issuer: string;
  audience: string;
  sub: string;
  /** Added with `email_verified: true`, like a provider that checked the address. */
  email?: string;
  /** Lifetime; default one hour. */
  ttlSeconds?: number;
}

/** Signs an ID token as the development identity provider would issue it. */
export async function mintDevIdToken(keys: DevIdpKeys, claims: DevIdTokenClaims, clock: Clock): Promise<string> {
  const jose = await loadJose();
  const issuedAt = Math.floor(clock.now().getTime() / 1000);
  const ttlSeconds = claims.ttlSeconds ?? 3600;
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) throw new RangeError('ttlSeconds must be a positive whole number');
  const payload: Record<string, unknown> = claims.email === undefined ? {} : { email: claims.email, email_verified: true };
  return new jose.SignJWT(payload)
    .setProtectedHeader({ alg: DEV_IDP_ALGORITHM, typ: 'JWT', kid: keys.kid })
    .setIssuer(claims.issuer)
    .setAudience(claims.audience)
    .setSubject(claims.sub)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .sign(keys.privateKey);
}

async function readPrivateJwk(file: string): Promise<JWK | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as JWK;
  } catch {
    throw new Error(`${file} is not a JSON Web Key; delete it to have a new development key pair made`);
  }
}

async function createPrivateJwk(file: string): Promise<JWK> {
  const jose = await loadJose();
  const { privateKey } = await jose.generateKeyPair(DEV_IDP_ALGORITHM, { extractable: true });
  const jwk = await jose.exportJWK(privateKey);
  const kid = await jose.calculateJwkThumbprint(jwk);
  const privateJwk: JWK = { ...jwk, kid, alg: DEV_IDP_ALGORITHM, use: 'sig' };

  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify(privateJwk, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, file); // fails when another process got there first
    return privateJwk;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const winner = await readPrivateJwk(file);
    if (!winner) throw error;
    return winner;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

async function importKeys(privateJwk: JWK, file: string): Promise<DevIdpKeys> {
  const { kty, n, e, d, kid } = privateJwk;
  if (kty !== 'RSA' || !n || !e || !d || !kid) {
    throw new Error(`${file} is not an RSA private JWK with a kid; delete it to have a new development key pair made`);
  }
  const jose = await loadJose();
  const privateKey = await jose.importJWK(privateJwk, DEV_IDP_ALGORITHM);
  if (privateKey instanceof Uint8Array) throw new Error(`${file} holds a symmetric key`);
  return { kid, privateKey, publicJwk: { kty, n, e, kid, alg: DEV_IDP_ALGORITHM, use: 'sig' } };
}
