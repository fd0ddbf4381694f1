import { createHash, timingSafeEqual } from 'node:crypto';
import type { Random } from '../ports/random';

/**
 * Session tokens `<id>.<secret>` (contract section 5): a 16-byte id to find the row and a 32-byte
 * secret of which only SHA-256 is stored, both base64url from a CSPRNG. A stolen database copy
 * therefore holds no usable token, and the id alone proves nothing.
 */

const TOKEN_PATTERN = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export interface NewSessionToken {
  /** Given to the client once; never stored or logged. */
  token: string;
  id: string;
  secretHash: string;
}

/** Creates a fresh token and the values to store for it. */
export function generateSessionToken(random: Random): NewSessionToken {
  const id = Buffer.from(random.bytes(16)).toString('base64url');
  const secret = Buffer.from(random.bytes(32)).toString('base64url');
  return { token: `${id}.${secret}`, id, secretHash: hashSessionSecret(secret) };
}

/** Splits a presented token; undefined for anything not shaped like one of ours. */
export function parseSessionToken(token: string): { id: string; secret: string } | undefined {
  const match = TOKEN_PATTERN.exec(token);
  if (!match?.[1] || !match[2]) return undefined;
  return { id: match[1], secret: match[2] };
}

/** SHA-256 of the secret half, hex. */
export function hashSessionSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * Compares a presented secret with the stored hash in constant time, so response timing never
 * tells an attacker how much of a guessed secret was right.
 */
export function sessionSecretMatches(storedHash: string, secret: string): boolean {
  const expected = Buffer.from(storedHash, 'hex');
  const actual = Buffer.from(hashSessionSecret(secret), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
