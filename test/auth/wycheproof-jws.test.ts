import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../shared/ports/clock';
import { signatureWasAccepted, type InvalidTokenReason } from '../../shared/auth/id-token/invalid-token-reason';
import { createIdTokenVerifier, type IdTokenVerification } from '../../shared/auth/id-token/verify-id-token';
import { startJwksServer, type JwksServer } from '../helpers/jwks-server';

/**
 * Every JWS of Wycheproof's `json_web_signature_test.json`, each group's public keys served as the
 * provider's JWKS: all refused as `invalid_token` (their payloads are no claim sets), none thrown,
 * and no `invalid` case refused only after its signature was accepted.
 */
interface WycheproofCase {
  tcId: number;
  comment: string;
  jws: string;
  result: 'valid' | 'invalid';
}
interface WycheproofGroup {
  comment: string;
  public?: Record<string, unknown> & { keys?: Record<string, unknown>[] };
  tests: WycheproofCase[];
}

const file = path.resolve(__dirname, '../testdata/wycheproof/json_web_signature_test.json');
const groups = (JSON.parse(readFileSync(file, 'utf8')) as { testGroups: WycheproofGroup[] }).testGroups;

/**
 * Valid vectors may still be refused before their signature is checked, for our own rules: HMAC
 * (no provider key is secret), an empty payload segment, a `?` in a segment (cases 372-373), or an
 * `alg` other than the key's (RFC 7520's PS384 token for a PS256 key). Never as a bad signature.
 * (Cases 367 and 370, mislabelled invalid upstream, C2SP/wycheproof#236, are HMAC cases.)
 */
const REASONS_FOR_VALID_SIGNATURES: readonly InvalidTokenReason[] = ['alg_not_allowed', 'malformed', 'no_matching_key'];

function publicKeys(group: WycheproofGroup): Record<string, unknown>[] {
  if (!group.public) return []; // HMAC groups: a provider never publishes a secret key
  return group.public.keys ?? [group.public];
}

function headerAlg(jws: string): string | undefined {
  try {
    const header: unknown = JSON.parse(Buffer.from(jws.split('.')[0] ?? '', 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && 'alg' in header && typeof header.alg === 'string' ? header.alg : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every asymmetric algorithm the group's keys or tokens name, so each case gets past the allow-list
 * and its signature is really checked (HMAC and `none` stay refused, as in production).
 */
function groupAlgorithms(group: WycheproofGroup): string[] {
  const named = [...publicKeys(group).map((key) => key.alg), ...group.tests.map((test) => headerAlg(test.jws))];
  const asymmetric = named.filter((alg): alg is string => typeof alg === 'string' && /^(RS|PS|ES)(256|384|512)$|^EdDSA$|^Ed25519$/.test(alg));
  return asymmetric.length > 0 ? [...new Set(asymmetric)] : ['RS256'];
}

let server: JwksServer;

beforeAll(async () => {
  server = await startJwksServer();
});

afterAll(async () => {
  await server?.close();
});

describe('Wycheproof JSON Web Signature vectors', () => {
  it('has the 401 cases in 23 groups the README describes', () => {
    expect(groups).toHaveLength(23);
    expect(groups.reduce((count, group) => count + group.tests.length, 0)).toBe(401);
  });

  it('refuses every case as invalid_token, and accepts no invalid signature', async () => {
    const reasons: Record<string, number> = {};
    const signatureAcceptedFor: number[] = [];
    const problems: string[] = [];

    for (const group of groups) {
      server.setKeys({ keys: publicKeys(group) });
      const verifier = createIdTokenVerifier({
        idp: { kind: 'remote', issuer: 'https://idp.example.test', audience: 'app', jwksUri: server.url, algorithms: groupAlgorithms(group) },
        clock: manualClock('2031-05-04T12:00:00Z'),
        jwks: { cooldownMs: 0 },
      });
      for (const test of group.tests) {
        let result: IdTokenVerification;
        try {
          result = await verifier.verify(test.jws);
        } catch (error) {
          problems.push(`tc ${test.tcId} threw ${String(error)}`);
          continue;
        }
        if (result.ok || result.failure !== 'invalid_token') {
          problems.push(`tc ${test.tcId} (${test.comment}): ${JSON.stringify(result)}`);
          continue;
        }
        const reason: InvalidTokenReason = result.reason;
        reasons[reason] = (reasons[reason] ?? 0) + 1;
        if (reason === 'verification_error') problems.push(`tc ${test.tcId}: an error that is not jose's`);
        if (signatureWasAccepted(reason)) {
          signatureAcceptedFor.push(test.tcId);
          if (test.result === 'invalid') problems.push(`tc ${test.tcId} (${test.comment}) is invalid but its signature was accepted (${reason})`);
        } else if (test.result === 'valid' && !REASONS_FOR_VALID_SIGNATURES.includes(reason)) {
          problems.push(`tc ${test.tcId} (${test.comment}) is valid but was refused as ${reason}`);
        }
      }
    }

    expect(problems).toEqual([]);
    // The signature checks really ran: valid vectors got through them (and then failed as non-claims).
    expect(signatureAcceptedFor.length).toBeGreaterThanOrEqual(20);
    expect(reasons.bad_signature ?? 0).toBeGreaterThan(100);
  });
});
