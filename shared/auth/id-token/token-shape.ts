/** ID tokens of real providers are 1–2 KiB; 8 KiB leaves room for large claim sets and no more. */
export const MAX_ID_TOKEN_BYTES = 8 * 1024;

/**
 * Compact JWS: three non-empty base64url segments without padding or whitespace. Anything else
 * (JWE, JSON serialization, an empty signature as `alg: none` needs) never reaches jose.
 */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export type TokenShapeProblem = 'oversized' | 'malformed';

/**
 * Cheap checks that run before any parsing or cryptography: the size cap first, so an oversized
 * token costs one length comparison, then the strict compact shape.
 * @returns the problem, or undefined when the token may be handed to jose.
 */
export function tokenShapeProblem(token: unknown): TokenShapeProblem | undefined {
  if (typeof token !== 'string') return 'malformed';
  // Counted in UTF-16 units: a token that passes the ASCII-only pattern below has as many bytes.
  if (token.length > MAX_ID_TOKEN_BYTES) return 'oversized';
  if (!COMPACT_JWS.test(token)) return 'malformed';
  return undefined;
}
