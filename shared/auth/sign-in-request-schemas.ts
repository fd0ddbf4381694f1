import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';

/**
 * Request bodies of the two sign-in endpoints (contract section 4). Unknown fields are refused.
 * Written with `zod/mini` and built on first use (`lazySchema`): neither costs a cold start.
 */

// No length bounds here: the 16 KiB body limit caps it, and the verifier refuses malformed and oversized tokens as invalid_token.
// `nonce`: the value the app generated for this sign-in (see IdTokenCheck); never logged.
export const adultSessionBody = lazySchema(() =>
  z.strictObject({ idToken: z.string(), nonce: z.optional(z.string().check(z.minLength(1), z.maxLength(512))) }),
);

// Lengths are bounded only loosely here: a too-long or malformed value is simply a wrong credential,
// and must get the same answer as one (the rules for new secrets live in the child-account endpoints).
export const childSessionBody = lazySchema(() =>
  z.union(
    [
      z.strictObject({ username: z.string().check(z.maxLength(256)), pin: z.string().check(z.maxLength(256)) }),
      z.strictObject({ username: z.string().check(z.maxLength(256)), password: z.string().check(z.maxLength(1024)) }),
    ],
    { error: 'Send either pin or password, not both.' },
  ),
);
