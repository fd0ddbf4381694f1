import { createHmac, generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';

/**
 * ID tokens for tests: signing keys, well-formed tokens, and the catalogue of forged and broken
 * tokens every verifier of ours must refuse. Tokens are signed by hand (node:crypto) so that a
 * header or claim set jose would refuse to produce can still be made.
 */

export type TestAlgorithm = 'RS256' | 'ES256';

export interface TestSigningKey {
  kid: string;
  alg: TestAlgorithm;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public key as served in a JWKS (`kid`, `alg`, `use: sig`). */
  publicJwk: JsonWebKey & { kid: string; alg: string; use: 'sig' };
}

let keyCounter = 0;

/** A fresh key pair (RSA 2048 or P-256). */
export function generateSigningKey(options: { alg?: TestAlgorithm; kid?: string } = {}): TestSigningKey {
  const alg = options.alg ?? 'RS256';
  keyCounter += 1;
  const kid = options.kid ?? `test-key-${keyCounter}`;
  const { privateKey, publicKey } =
    alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, alg, privateKey, publicKey, publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' } };
}

/** A key set as the identity provider would serve it. */
export function jwksOf(...keys: TestSigningKey[]): { keys: TestSigningKey['publicJwk'][] } {
  return { keys: keys.map((key) => key.publicJwk) };
}

const b64 = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/** Signs `header.payload` with `signer`; the payload may be any JSON value or raw text. */
export function signCompact(header: object, payload: unknown, signer: (input: Buffer) => Buffer): string {
  const payloadText = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const input = `${b64(JSON.stringify(header))}.${b64(payloadText)}`;
  return `${input}.${b64(signer(Buffer.from(input)))}`;
}

/** A signer for the key's own algorithm. */
export function keySigner(key: TestSigningKey): (input: Buffer) => Buffer {
  return key.alg === 'RS256'
    ? (input) => sign('sha256', input, key.privateKey)
    : (input) => sign('sha256', input, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
}

export function hmacSigner(secret: string | Buffer): (input: Buffer) => Buffer {
  return (input) => createHmac('sha256', secret).update(input).digest();
}

export interface TokenContext {
  issuer: string;
  audience: string;
  /** The verifier's current time. */
  now: Date;
}

/** A valid claim set: `sub`, `iat` now, `exp` in an hour; `overrides` replace or add claims. */
export function idTokenClaims(context: TokenContext, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const iat = Math.floor(context.now.getTime() / 1000);
  return { iss: context.issuer, aud: context.audience, sub: 'user-123', iat, exp: iat + 3600, ...overrides };
}

/**
 * A token signed by `key` with a JWT header naming it.
 * @param claims a claim set (see `idTokenClaims`); keys whose value is `undefined` are left out.
 * @param header extra or replaced header fields (`undefined` removes one).
 */
export function mintIdToken(key: TestSigningKey, claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  return signCompact(withoutUndefined({ alg: key.alg, typ: 'JWT', kid: key.kid, ...header }), withoutUndefined(claims), keySigner(key));
}

function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined));
}

export interface AttackToken {
  name: string;
  token: string;
  /**
   * The refusal reason our verifier should give, where exactly one is right: it proves the token
   * was refused for its defect and not by accident (a typo in the test's issuer, say).
   */
  expectedReason?: string;
}

/**
 * Every forged or broken token of the contract's attack list, made against `key` (the provider's
 * real key). All must be refused as `invalid_token`, and none may cause a 5xx.
 */
export function attackTokens(key: TestSigningKey, context: TokenContext): AttackToken[] {
  const claims = idTokenClaims(context);
  const now = Math.floor(context.now.getTime() / 1000);
  const valid = mintIdToken(key, claims);
  const [validHeader, validPayload, validSignature] = valid.split('.') as [string, string, string];
  const attacker = generateSigningKey({ alg: key.alg, kid: key.kid });
  const attackerSign = keySigner(attacker);
  const publicPem = key.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const attacks: AttackToken[] = [];
  const add = (name: string, token: string, expectedReason?: string): void => {
    attacks.push(expectedReason ? { name, token, expectedReason } : { name, token });
  };

  for (const none of ['none', 'None', 'NONE', 'nOnE']) {
    const header = { alg: none, typ: 'JWT', kid: key.kid };
    add(`alg ${none}, empty signature`, signCompact(header, claims, () => Buffer.alloc(0)), 'malformed');
    add(`alg ${none}, with a signature`, signCompact(header, claims, keySigner(key)), 'alg_not_allowed');
  }

  // Key confusion: the provider's public key used as an HMAC secret.
  const hs = { alg: 'HS256', typ: 'JWT', kid: key.kid };
  add('HS256 keyed with the public key PEM', signCompact(hs, claims, hmacSigner(publicPem)), 'alg_not_allowed');
  add('HS256 keyed with the public key PEM, no trailing newline', signCompact(hs, claims, hmacSigner(publicPem.trim())), 'alg_not_allowed');
  add('HS256 keyed with the public JWK JSON', signCompact(hs, claims, hmacSigner(JSON.stringify(key.publicJwk))), 'alg_not_allowed');
  add('HS256 keyed with the public key DER', signCompact(hs, claims, hmacSigner(key.publicKey.export({ type: 'spki', format: 'der' }))), 'alg_not_allowed');

  // Keys the token brings along: signed by the attacker, whose key the header offers or points to.
  const base = { alg: key.alg, typ: 'JWT', kid: key.kid };
  add('embedded jwk header', signCompact({ ...base, jwk: attacker.publicJwk }, claims, attackerSign), 'bad_signature');
  add('embedded jwk header, own kid', signCompact({ ...base, kid: 'attacker', jwk: { ...attacker.publicJwk, kid: 'attacker' } }, claims, attackerSign), 'no_matching_key');
  add('embedded jwk header, no kid', signCompact({ alg: key.alg, typ: 'JWT', jwk: attacker.publicJwk }, claims, attackerSign), 'bad_signature');
  add('jku header', signCompact({ ...base, jku: 'http://127.0.0.1:9/attacker/jwks.json' }, claims, attackerSign), 'bad_signature');
  add('x5u header', signCompact({ ...base, x5u: 'http://127.0.0.1:9/attacker/cert.pem' }, claims, attackerSign), 'bad_signature');
  add('x5c header', signCompact({ ...base, x5c: ['MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'] }, claims, attackerSign), 'bad_signature');
  add('signed by another key under the real kid', signCompact(base, claims, attackerSign), 'bad_signature');

  // kid injection: file paths, SQL, and the classic "/dev/null as the HMAC key".
  for (const kid of ['../../../../dev/null', '../../../../../../etc/passwd', '/dev/null', "x' OR '1'='1", 'kid\u0000null']) {
    add(`kid ${JSON.stringify(kid)} signed by attacker`, signCompact({ ...base, kid }, claims, attackerSign), 'no_matching_key');
  }
  add('kid /dev/null with HS256 and an empty key', signCompact({ alg: 'HS256', typ: 'JWT', kid: '../../../../dev/null' }, claims, hmacSigner('')), 'alg_not_allowed');

  // Time: 30 s of tolerance at most.
  add('expired by 31 s', mintIdToken(key, { ...claims, iat: now - 3600, exp: now - 31 }), 'expired');
  add('expired long ago', mintIdToken(key, { ...claims, iat: now - 86_400, exp: now - 82_800 }), 'expired');
  add('nbf 31 s in the future', mintIdToken(key, { ...claims, nbf: now + 31 }), 'not_yet_valid');
  add('nbf an hour in the future', mintIdToken(key, { ...claims, nbf: now + 3600 }), 'not_yet_valid');
  add('iat an hour in the future', mintIdToken(key, { ...claims, iat: now + 3600, exp: now + 7200 }), 'issued_in_future');

  // Issuer and audience: exact matches only.
  add('wrong issuer', mintIdToken(key, { ...claims, iss: 'https://evil.example' }), 'wrong_issuer');
  add('issuer with a trailing slash', mintIdToken(key, { ...claims, iss: `${context.issuer}/` }), 'wrong_issuer');
  add('issuer in other case', mintIdToken(key, { ...claims, iss: swapCase(context.issuer) }), 'wrong_issuer');
  add('issuer as an array', mintIdToken(key, { ...claims, iss: [context.issuer] }), 'wrong_issuer');
  add('wrong audience', mintIdToken(key, { ...claims, aud: 'another-app' }), 'wrong_audience');
  add('audience list without ours', mintIdToken(key, { ...claims, aud: ['another-app', 'third-app'] }), 'wrong_audience');
  add('audience with a suffix', mintIdToken(key, { ...claims, aud: `${context.audience}-admin` }), 'wrong_audience');
  // Several audiences, ours among them: only with `azp` naming ours (OIDC Core 3.1.3.7).
  add('audience list with ours and another, no azp', mintIdToken(key, { ...claims, aud: [context.audience, 'another-app'] }), 'azp_missing');
  add('audience list with ours and another, azp the other', mintIdToken(key, { ...claims, aud: [context.audience, 'another-app'], azp: 'another-app' }), 'azp_mismatch');
  add('audience list with ours and another, azp a third', mintIdToken(key, { ...claims, aud: [context.audience, 'another-app'], azp: 'third-app' }), 'azp_mismatch');
  add('audience list with ours and another, azp not a string', mintIdToken(key, { ...claims, aud: [context.audience, 'another-app'], azp: [context.audience] }), 'azp_missing');
  add('audience list without ours, azp ours', mintIdToken(key, { ...claims, aud: ['another-app', 'third-app'], azp: context.audience }), 'wrong_audience');

  // Required claims and their types.
  add('missing exp', mintIdToken(key, { ...claims, exp: undefined }), 'claim_missing');
  add('missing sub', mintIdToken(key, { ...claims, sub: undefined }), 'claim_missing');
  add('missing iat', mintIdToken(key, { ...claims, iat: undefined }), 'claim_missing');
  add('missing iss', mintIdToken(key, { ...claims, iss: undefined }), 'claim_missing');
  add('missing aud', mintIdToken(key, { ...claims, aud: undefined }), 'claim_missing');
  add('exp as a string', mintIdToken(key, { ...claims, exp: String(now + 3600) }), 'claim_invalid');
  add('empty sub', mintIdToken(key, { ...claims, sub: '' }), 'claim_invalid');
  add('numeric sub', mintIdToken(key, { ...claims, sub: 12345 }), 'claim_invalid');
  add('sub over 255 characters', mintIdToken(key, { ...claims, sub: 's'.repeat(256) }), 'claim_invalid');
  add('claims not an object', signCompact(base, '"just a string"', keySigner(key)), 'payload_not_claims');
  add('access token typ', mintIdToken(key, claims, { typ: 'at+jwt' }), 'wrong_typ');

  // Header extensions.
  add('unknown crit', mintIdToken(key, claims, { crit: ['x-unknown'], 'x-unknown': true }), 'unsupported_header');
  add('crit not an array', mintIdToken(key, claims, { crit: 'exp' }), 'malformed');
  // Unencoded payload: the signature still verifies (same signing input), so jwtVerify refuses it after.
  add('b64 false', mintIdToken(key, claims, { b64: false, crit: ['b64'] }), 'payload_not_claims');

  // Tampering.
  add('altered signature', `${validHeader}.${validPayload}.${flipFirst(validSignature)}`, 'bad_signature');
  add('altered payload', `${validHeader}.${b64(JSON.stringify({ ...claims, sub: 'admin' }))}.${validSignature}`, 'bad_signature');
  add('signature of another token', `${validHeader}.${validPayload}.${mintIdToken(key, { ...claims, sub: 'x' }).split('.')[2]}`, 'bad_signature');
  add('truncated signature', `${validHeader}.${validPayload}.${validSignature.slice(0, 40)}`, 'bad_signature');

  // Shape: whitespace, padding, extra or missing segments, other serializations.
  add('leading space', ` ${valid}`, 'malformed');
  add('trailing space', `${valid} `, 'malformed');
  add('trailing newline', `${valid}\n`, 'malformed');
  add('newline inside the payload', `${validHeader}.${validPayload.slice(0, 10)}\n${validPayload.slice(10)}.${validSignature}`, 'malformed');
  add('tab before the signature', `${validHeader}.${validPayload}.\t${validSignature}`, 'malformed');
  add('padding on the signature', `${valid}==`, 'malformed');
  add('padding on every segment', `${validHeader}=.${validPayload}=.${validSignature}=`, 'malformed');
  add('standard base64 alphabet', `${validHeader}.${validPayload}.${validSignature.replace(/-/g, '+').replace(/_/g, '/')}+/`, 'malformed');
  add('two segments', `${validHeader}.${validPayload}`, 'malformed');
  add('four segments', `${valid}.${validSignature}`, 'malformed');
  add('JWE-like five segments', `${validHeader}..${validPayload}.${validSignature}.${validSignature}`, 'malformed');
  add('empty string', '', 'malformed');
  add('JSON serialization', JSON.stringify({ protected: validHeader, payload: validPayload, signature: validSignature }), 'malformed');
  add('header not JSON', `${b64('not json')}.${validPayload}.${validSignature}`, 'malformed');

  // Size: refused before any parsing.
  add('20 KiB token', mintIdToken(key, { ...claims, filler: 'x'.repeat(20 * 1024) }), 'oversized');

  return attacks;
}

function flipFirst(segment: string): string {
  return `${segment[0] === 'A' ? 'B' : 'A'}${segment.slice(1)}`;
}

function swapCase(text: string): string {
  return [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}
