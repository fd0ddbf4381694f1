import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import { CanaryTracker } from '../helpers/canaries';
import { startLocalHost, type LocalHost } from '../helpers/local-host';
import { auditRows, readRows } from '../helpers/sqlite-reader';

/**
 * Adult sign-in limits over real HTTP through the local host: at most 30 failed sign-ins per client
 * address in 10 minutes (the default), a global ceiling of failures per minute (set to 45 here so
 * the suite reaches it quickly), 429 `too_many_attempts` with `Retry-After` past either, and only
 * failures refused: a valid token signs in whatever the counts. Addresses come from
 * `X-Forwarded-For` behind one trusted proxy hop; without a client address every attempt shares
 * one limit (fail closed), which one warn line says.
 */

const GLOBAL_CEILING = 45;

let env: AuthTestHost;
const canaries = new CanaryTracker();

beforeAll(async () => {
  env = await startAuthTestHost('adult-limits', canaries, {
    TRUST_PROXY_HOPS: '1',
    ADULT_SIGN_IN_GLOBAL_MAX_FAILURES_PER_MINUTE: String(GLOBAL_CEILING),
  });
});

afterAll(async () => {
  await env?.stop();
});

interface Answer {
  status: number;
  retryAfter: string | null;
  contentType: string | null;
  requestId: string | null;
  body: Record<string, unknown>;
}

async function signIn(idToken: string, address: string | undefined, host: LocalHost = env.host): Promise<Answer> {
  canaries.add(idToken);
  if (address) canaries.add(address);
  const response = await fetch(`${host.baseUrl}/api/v1/auth/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(address ? { 'x-forwarded-for': address } : {}) },
    body: JSON.stringify({ idToken }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (typeof body.token === 'string') canaries.add(body.token);
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    contentType: response.headers.get('content-type'),
    requestId: response.headers.get('x-request-id'),
    body,
  };
}

/** A token the provider never signed: right claims, wrong audience. */
const invalidToken = (sub: string): string => env.idToken(sub, { aud: 'api://someone-else' });

function auditOf(traceId: unknown): Record<string, unknown>[] {
  return auditRows(env.databaseFile).filter((row) => row.traceId === traceId);
}

function throttledRows(): { scope: string; retryAfterSeconds: number; maxFailures: number; windowSeconds: number }[] {
  return auditRows(env.databaseFile)
    .filter((row) => row.eventType === 'authn_login_fail' && row.reason === 'throttled')
    .map((row) => JSON.parse(String(row.details)) as { scope: string; retryAfterSeconds: number; maxFailures: number; windowSeconds: number });
}

describe('the per-address limit (30 failures in 10 minutes)', () => {
  const address = '203.0.113.45';

  it('answers the 31st failure from one address with 429 too_many_attempts and Retry-After, without an audit row', async () => {
    for (let attempt = 1; attempt <= 30; attempt += 1) {
      const answer = await signIn(invalidToken(`flood-${attempt}`), address);
      expect({ attempt, status: answer.status, code: answer.body.code }).toEqual({ attempt, status: 401, code: 'invalid_token' });
      // The 30th fills the limit: its request also writes the closing's one `throttled` row.
      expect(auditOf(answer.body.traceId).map((row) => String(row.reason)).sort()).toEqual(attempt < 30 ? ['invalid_token'] : ['invalid_token', 'throttled']);
    }
    const refused = await signIn(invalidToken('flood-31'), address);
    expect(refused.status).toBe(429);
    expect(refused.contentType).toBe('application/problem+json');
    expect(refused.body).toMatchObject({ code: 'too_many_attempts', status: 429 });
    const retryAfter = Number(refused.retryAfter);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(540);
    expect(retryAfter).toBeLessThanOrEqual(600);
    // The refusal writes nothing to the append-only audit log; it is a log line and an event.
    expect(auditOf(refused.body.traceId)).toEqual([]);
    const line = await env.host.waitForLine((l) => l.requestId === refused.requestId && l.message === 'sign-in failed');
    expect(line).toMatchObject({ level: 'info', userId: null, reason: 'throttled', scope: 'address', accountType: 'adult' });

    // The limit's closing is one audit row, written with the 30th failure, and one log line.
    // The wait counts from the window's first failure: a second less when the 30 took more than one.
    const closedFor = expect.toSatisfy((seconds: unknown) => typeof seconds === 'number' && seconds > 590 && seconds <= 600);
    expect(throttledRows()).toEqual([{ accountType: 'adult', scope: 'address', retryAfterSeconds: closedFor, maxFailures: 30, windowSeconds: 600 }]);
    const closing = await env.host.waitForLine((l) => l.message === 'adult sign-in limit reached');
    expect(closing).toMatchObject({ level: 'info', scope: 'address', retryAfterSeconds: closedFor });
  });

  it('keeps refusing failures from that address, and stores nothing of the address', async () => {
    const again = await signIn(invalidToken('flood-32'), address);
    expect(again.status).toBe(429);
    const rows = readRows<{ addressKey: string }>(env.databaseFile, 'SELECT addressKey FROM AdultSignInFailures');
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((row) => row.addressKey)).size).toBe(1);
    expect(rows[0]?.addressKey).toMatch(/^[0-9a-f]{64}$/);
  });

  it('still signs in a valid token from another address, and from the throttled one: only failures are refused', async () => {
    const elsewhere = await signIn(env.idToken('parent-elsewhere'), '198.51.100.77');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body).toMatchObject({ tokenType: 'Bearer', user: { accountType: 'adult' } });
    const invalidElsewhere = await signIn(invalidToken('flood-elsewhere'), '198.51.100.77');
    expect(invalidElsewhere.status).toBe(401);
    const sameAddress = await signIn(env.idToken('parent-behind-the-flood'), address);
    expect(sameAddress.status).toBe(200);
  });
});

describe('the global ceiling of failures per minute', () => {
  it('answers 429 to a failure from a fresh address once all addresses together reach it', async () => {
    // 30 + 1 failures so far in the last minute; each further address stays far below its own limit.
    const failuresSoFar = readRows<{ n: number }>(env.databaseFile, 'SELECT COUNT(*) AS n FROM AdultSignInFailures')[0]?.n ?? 0;
    expect(failuresSoFar).toBe(31);
    for (let index = 0; index < GLOBAL_CEILING - failuresSoFar; index += 1) {
      const answer = await signIn(invalidToken(`spread-${index}`), `192.0.2.${index + 1}`);
      expect({ index, status: answer.status }).toEqual({ index, status: 401 });
    }
    const refused = await signIn(invalidToken('spread-over'), '192.0.2.200');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'too_many_attempts' });
    const retryAfter = Number(refused.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(auditOf(refused.body.traceId)).toEqual([]);
    const line = await env.host.waitForLine((l) => l.requestId === refused.requestId && l.message === 'sign-in failed');
    expect(line).toMatchObject({ reason: 'throttled', scope: 'global' });

    expect(throttledRows().map((row) => row.scope).sort()).toEqual(['address', 'global']);
    expect(throttledRows().find((row) => row.scope === 'global')).toMatchObject({ maxFailures: GLOBAL_CEILING, windowSeconds: 60 });
    const closing = await env.host.waitForLine((l) => l.message === 'adult sign-in limit reached' && l.scope === 'global');
    expect(closing).toMatchObject({ level: 'warn' });
  });

  it('never locks out a valid token', async () => {
    const answer = await signIn(env.idToken('parent-during-the-flood'), '192.0.2.201');
    expect(answer.status).toBe(200);
  });
});

describe('without a client address (no trusted proxy hop)', () => {
  let host: LocalHost;

  beforeAll(async () => {
    host = await startLocalHost({
      ...env.hostEnv,
      SQLITE_PATH: path.join(env.workDir, 'no-address.sqlite'),
      TRUST_PROXY_HOPS: '0',
      ADULT_SIGN_IN_ADDRESS_MAX_FAILURES: '3',
      NEW_USER_STATUS: 'pending_approval',
      BOOTSTRAP_ADMIN_SUBJECTS: 'no-address-admin',
    });
  });

  afterAll(async () => {
    await host?.stop();
    expect(host.invalidLines).toEqual([]);
    expect(canaries.findIn(host.stdout.join('\n'))).toEqual([]);
  });

  it('counts every attempt under one shared limit (fail closed), whatever X-Forwarded-For claims, and says so once', async () => {
    for (const claimed of ['203.0.113.1', '203.0.113.2', undefined]) {
      expect((await signIn(invalidToken('no-address'), claimed, host)).status).toBe(401);
    }
    const refused = await signIn(invalidToken('no-address'), '203.0.113.3', host);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(590);
    const warnings = host.lines.filter((l) => l.message === 'adult sign-in failures without a client address share one address limit');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 'warn', trustProxyHops: 0, maxFailures: 3 });
  });

  it('refuses a pending adult like any failure past the limit, and lets an active adult sign in', async () => {
    // Pending approval is a failed sign-in (403 and an audit row): past the limit it is refused, and creates no row yet.
    const pending = await signIn(env.idToken('pending-newcomer'), undefined, host);
    expect(pending.status).toBe(429);
    expect(readRows(path.join(env.workDir, 'no-address.sqlite'), "SELECT id FROM Users WHERE subject = 'pending-newcomer'")).toEqual([]);
    const admin = await signIn(env.idToken('no-address-admin'), undefined, host);
    expect(admin.status).toBe(200);
    expect(admin.body).toMatchObject({ user: { role: 'admin', status: 'active' } });
  });
});

describe('what the app wrote', () => {
  it('holds no token, session token or client address in stdout or the audit log', () => {
    expect(canaries.size).toBeGreaterThan(60);
    expect(env.host.invalidLines).toEqual([]);
    expect(canaries.findIn(env.host.stdout.join('\n'))).toEqual([]);
    expect(canaries.findIn(JSON.stringify(auditRows(env.databaseFile)))).toEqual([]);
  });
});
