import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureWasAccepted, type InvalidTokenReason } from '../../shared/auth/id-token/invalid-token-reason';
import { CanaryTracker } from '../helpers/canaries';
import { startJwksServer, type JwksServer } from '../helpers/jwks-server';
import { startLocalHost, type LocalHost } from '../helpers/local-host';
import { auditRows } from '../helpers/sqlite-reader';

/**
 * Every Wycheproof JWS posted to the adult sign-in over real HTTP, with every group's public keys
 * served as the provider's JWKS: all 401, never a 5xx, nothing of a token in the output, and no
 * `invalid` case refused only at claim validation (which would mean its signature was accepted).
 * The refusal reason of each attempt is read from its audit row.
 */
interface WycheproofGroup {
  public?: Record<string, unknown> & { keys?: Record<string, unknown>[] };
  tests: { tcId: number; jws: string; result: 'valid' | 'invalid' }[];
}

const file = path.resolve(__dirname, '../testdata/wycheproof/json_web_signature_test.json');
const groups = (JSON.parse(readFileSync(file, 'utf8')) as { testGroups: WycheproofGroup[] }).testGroups;
const ASYMMETRIC = /^(RS|PS|ES)(256|384|512)$|^EdDSA$/;

let workDir: string;

beforeAll(() => {
  workDir = mkdtempSync(path.join(tmpdir(), 'wycheproof-e2e-'));
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

/** Every asymmetric algorithm the group's keys or tokens name, so each case gets past the allow-list. */
function groupAlgorithms(group: WycheproofGroup, keys: Record<string, unknown>[]): string[] {
  const named = [...keys.map((key) => key.alg), ...group.tests.map((test) => headerAlg(test.jws))];
  const asymmetric = named.filter((alg): alg is string => typeof alg === 'string' && ASYMMETRIC.test(alg));
  return asymmetric.length > 0 ? [...new Set(asymmetric)] : ['RS256'];
}

interface Answer {
  tcId: number;
  result: string;
  status: number;
  code: string | undefined;
  /** The verifier's refusal reason, from the attempt's audit row. */
  check: InvalidTokenReason | undefined;
}

function keysOf(group: WycheproofGroup): Record<string, unknown>[] {
  return group.public ? (group.public.keys ?? [group.public]) : [];
}

function tokenKid(jws: string): unknown {
  try {
    return (JSON.parse(Buffer.from(jws.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid?: unknown }).kid;
  } catch {
    return undefined;
  }
}

/**
 * Groups that may share one host: each served JWKS must hold exactly what a token of the group
 * could pick, so a group whose keys or tokens lack a `kid` stands alone, and no two groups in a
 * host share a `kid` (Wycheproof reuses kids for its wrong-use keys).
 */
function hostBatches(all: readonly WycheproofGroup[]): WycheproofGroup[][] {
  const batches: { groups: WycheproofGroup[]; kids: Set<unknown>; alone: boolean }[] = [];
  for (const group of all) {
    const kids = keysOf(group).map((key) => key.kid);
    const alone = kids.some((kid) => kid === undefined) || group.tests.some((test) => tokenKid(test.jws) === undefined);
    const fit = alone ? undefined : batches.find((batch) => !batch.alone && kids.every((kid) => !batch.kids.has(kid)));
    if (fit) {
      fit.groups.push(group);
      for (const kid of kids) fit.kids.add(kid);
    } else {
      batches.push({ groups: [group], kids: new Set(kids), alone });
    }
  }
  return batches.map((batch) => batch.groups);
}

/** One host for a batch of groups, its JWKS holding exactly their public keys (none for HMAC groups). */
async function runBatch(batch: readonly WycheproofGroup[], index: number, canaries: CanaryTracker): Promise<Answer[]> {
  const keys = batch.flatMap(keysOf);
  const tests = batch.flatMap((group) => group.tests);
  const databaseFile = path.join(workDir, `group-${index}.sqlite`);
  const jwks: JwksServer = await startJwksServer({ keys });
  const host: LocalHost = await startLocalHost({
    APP_ENV: 'test',
    SQLITE_PATH: databaseFile,
    IDP_JWKS_URI: jwks.url,
    IDP_ISSUER: 'https://wycheproof.test/',
    IDP_AUDIENCE: 'api://wycheproof',
    IDP_ALGORITHMS: [...new Set(batch.flatMap((group) => groupAlgorithms(group, keysOf(group))))].join(','),
    // Every vector is a failure, far more of them than the adult sign-in limits let through.
    ADULT_SIGN_IN_ADDRESS_MAX_FAILURES: '100000',
    ADULT_SIGN_IN_GLOBAL_MAX_FAILURES_PER_MINUTE: '1000000',
  });
  try {
    const answers: (Answer & { traceId: string })[] = [];
    for (const test of tests) {
      canaries.add(test.jws);
      const response = await fetch(`${host.baseUrl}/api/v1/auth/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ idToken: test.jws }),
      });
      const body = (await response.json()) as { code?: string; traceId?: string };
      answers.push({ tcId: test.tcId, result: test.result, status: response.status, code: body.code, check: undefined, traceId: String(body.traceId) });
    }
    const checks = new Map(
      auditRows(databaseFile).map((row) => [String(row.traceId), (JSON.parse(String(row.details)) as { check?: InvalidTokenReason }).check]),
    );
    expect(host.invalidLines).toEqual([]);
    expect(canaries.findIn(host.stdout.join('\n'))).toEqual([]);
    return answers.map(({ traceId, ...answer }) => ({ ...answer, check: checks.get(traceId) }));
  } finally {
    await host.stop();
    await jwks.close();
  }
}

function headerAlg(jws: string): string | undefined {
  try {
    const header = JSON.parse(Buffer.from(jws.split('.')[0] ?? '', 'base64url').toString('utf8')) as { alg?: unknown };
    return typeof header.alg === 'string' ? header.alg : undefined;
  } catch {
    return undefined;
  }
}

describe('Wycheproof JWS vectors against POST /api/v1/auth/session', () => {
  it('refuses every one with 401 invalid_token, and accepts no invalid signature', { timeout: 120_000 }, async () => {
    const canaries = new CanaryTracker();
    const answers: Answer[] = [];
    const batches = hostBatches(groups);
    // Three hosts at a time keep the two cores busy without starving them.
    for (let start = 0; start < batches.length; start += 3) {
      const running = batches.slice(start, start + 3).map((batch, offset) => runBatch(batch, start + offset, canaries));
      answers.push(...(await Promise.all(running)).flat());
    }
    expect(answers.length).toBeGreaterThan(390);
    for (const answer of answers) {
      expect({ tcId: answer.tcId, status: answer.status, code: answer.code }).toEqual({ tcId: answer.tcId, status: 401, code: 'invalid_token' });
      expect({ tcId: answer.tcId, audited: answer.check !== undefined }).toEqual({ tcId: answer.tcId, audited: true });
    }
    const acceptedInvalid = answers.filter((answer) => answer.result === 'invalid' && answer.check && signatureWasAccepted(answer.check));
    expect(acceptedInvalid).toEqual([]);
  });
});
