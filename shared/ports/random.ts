import { randomBytes, randomUUID } from 'node:crypto';

/**
 * The randomness port: ids and secrets come from a `Random`, so tests can make them predictable
 * while production always uses the operating system's CSPRNG.
 */
export interface Random {
  /** A random (version 4) UUID in lowercase canonical form. */
  uuid(): string;
  /** `length` random bytes. */
  bytes(length: number): Uint8Array;
}

/** The production source: Node's CSPRNG. */
export const cryptoRandom: Random = {
  uuid: () => randomUUID(),
  bytes: (length) => new Uint8Array(randomBytes(length)),
};

/**
 * A predictable source for tests ONLY (it is not random at all): UUIDs count up from
 * `00000000-0000-4000-8000-000000000001`, bytes come from a small seeded generator.
 * @param seed changes the byte stream; the UUID sequence always starts at 1.
 */
export function sequentialRandom(seed = 1): Random {
  let counter = 0;
  let state = seed >>> 0 || 1;
  return {
    uuid: () => {
      counter += 1;
      return `00000000-0000-4000-8000-${counter.toString(16).padStart(12, '0')}`;
    },
    bytes: (length) => {
      const out = new Uint8Array(length);
      for (let index = 0; index < length; index += 1) {
        // xorshift32: enough spread for tests, no pretence of security.
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        state >>>= 0;
        out[index] = state & 0xff;
      }
      return out;
    },
  };
}
