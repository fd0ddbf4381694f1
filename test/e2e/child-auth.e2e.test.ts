import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../helpers/api-client';
import { CanaryTracker } from '../helpers/canaries';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import { startLocalHost, type LocalHost } from '../helpers/local-host';
import { auditRows, readRows } from '../helpers/sqlite-reader';

/**
 * Child accounts and child sign-in over real HTTP through the local host: a parent manages
 * children, children sign in with a PIN or password, throttling answers 429, and two hosts on one
 * database share the counters.
 */
const JSON_SUITE = path.resolve(__dirname, '../testdata/json-test-suite/test_parsing');

let env: AuthTestHost;
let databaseFile: string;
let host: LocalHost;
let api: ApiClient;
const canaries = new CanaryTracker();
let parentToken: string;
let parentId: string;

async function newParent(sub: string): Promise<{ token: string; userId: string }> {
  const { token, userId, response } = await api.signInAdult(env.idToken(sub));
  expect(response.status).toBe(200);
  return { token, userId };
}

/** Every request of a test comes from its own address, so the per-address cap only bites where a test means it to. */
let addressCounter = 0;
function fromNewAddress(): Record<string, string> {
  addressCounter += 1;
  return { 'x-forwarded-for': `198.51.100.${addressCounter}` };
}

beforeAll(async () => {
  env = await startAuthTestHost('children', canaries, {
    TRUST_PROXY_HOPS: '1',
    CHILD_SECRET_PEPPER: 'e2e-pepper-0123456789abcdef0123456789',
    // The bursts below are about the account's lock. On a loaded machine 40 Argon2 computations on two
    // threads can wait past the default 3 s, which answers 503 by design (its own host, further down, tests that).
    HASH_QUEUE_MAX_WAIT_MS: '30000',
  });
  ({ host, api, databaseFile } = env);
  ({ token: parentToken, userId: parentId } = await newParent('parent-children'));
});

afterAll(async () => {
  await env?.stop();
});

describe('child accounts', () => {
  it('creates a child with the contract shape and audits it', async () => {
    const response = await api.createChild(parentToken, { username: 'Sunny.Kid', pin: '481592', scopes: ['announcements', 'events'] });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      username: 'sunny.kid',
      status: 'active',
      scopes: ['announcements', 'events'],
      locked: false,
      createdAt: expect.any(String),
    });
    const row = auditRows(databaseFile).find((r) => r.eventType === 'child_created' && r.subjectUserId === response.body.id);
    expect(row).toMatchObject({ actorUserId: parentId, outcome: 'success' });
    const stored = readRows<{ secretHash: string }>(databaseFile, 'SELECT secretHash FROM ChildAccounts WHERE userId = @id', {
      id: String(response.body.id),
    });
    expect(stored[0]?.secretHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    canaries.add(String(stored[0]?.secretHash));
  });

  it.each([
    ['a taken username in other case', { username: 'SUNNY.KID', pin: '739164', scopes: [] }, 409, 'username_taken'],
    ['a common PIN', { username: 'kid-two', pin: '123123', scopes: [] }, 400, 'weak_secret'],
    ['a run', { username: 'kid-two', pin: '987654', scopes: [] }, 400, 'weak_secret'],
    ['a short PIN', { username: 'kid-two', pin: '48159', scopes: [] }, 400, 'weak_secret'],
    ['a common password', { username: 'kid-two', password: 'password123', scopes: [] }, 400, 'weak_secret'],
    ['a bad username', { username: 'a', pin: '739164', scopes: [] }, 400, 'invalid_request'],
    ['an unknown section', { username: 'kid-two', pin: '739164', scopes: ['casino'] }, 400, 'invalid_request'],
    ['both a PIN and a password', { username: 'kid-two', pin: '739164', password: 'Tr0ub4dor&3x', scopes: [] }, 400, 'invalid_request'],
  ])('refuses %s', async (_name, child, status, code) => {
    const response = await api.createChild(parentToken, child as { username: string; scopes: string[] });
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ code });
    expect(JSON.stringify(response.body)).not.toContain(String((child as { pin?: string }).pin ?? 'no-pin'));
  });

  it('checks the session before the body: anonymous requests get 401 whatever they send, an oversized one 413 first', async () => {
    const malformed = await api.request('POST', '/api/v1/children', { body: '{"username":' });
    expect(malformed.status).toBe(401);
    expect(malformed.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    // Except a body over the limit: the host refuses it from its Content-Length before any work, session check included.
    const tooLarge = await api.request('POST', '/api/v1/children', { body: { username: 'x'.repeat(20_000) } });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.code).toBe('payload_too_large');
  });

  it('lists the parent own children a page at a time', async () => {
    await api.createChild(parentToken, { username: 'page-kid', password: 'river-otter-lamp-42', scopes: ['media'] });
    const first = await api.request('GET', '/api/v1/children?limit=1', { token: parentToken });
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(1);
    expect(typeof first.body.nextCursor).toBe('string');
    const second = await api.request('GET', `/api/v1/children?limit=1&cursor=${String(first.body.nextCursor)}`, { token: parentToken });
    expect((second.body.items as { username: string }[])[0]?.username).toBe('page-kid');
    const other = await newParent('parent-other');
    const none = await api.request('GET', '/api/v1/children', { token: other.token });
    expect(none.body).toEqual({ items: [], nextCursor: null });
    expect((await api.request('GET', '/api/v1/children?cursor=bogus', { token: parentToken })).status).toBe(400);
    // Times SQL Server's datetime2 cannot hold are refused as bad cursors, not sent to SQL.
    for (const createdAt of ['0000-01-01T00:00:00.000Z', '+010000-01-01T00:00:00.000Z']) {
      const cursor = Buffer.from(JSON.stringify([createdAt, '3f0c1a9e-2b4d-4c8e-9a7b-1d2e3f4a5b6c'])).toString('base64url');
      const answer = await api.request('GET', `/api/v1/children?cursor=${cursor}`, { token: parentToken });
      expect(answer.status, createdAt).toBe(400);
      expect(answer.body.code).toBe('invalid_request');
    }
  });
});

describe('child sign-in', () => {
  it('signs a child in with its PIN and shows its scopes and parent', async () => {
    const signIn = await api.signInChild('SUNNY.kid', '481592', { headers: fromNewAddress() });
    expect(signIn.status).toBe(200);
    expect(signIn.body).toMatchObject({ tokenType: 'Bearer', user: { role: 'child', accountType: 'child', scopes: ['announcements', 'events'] } });
    const me = await api.request('GET', '/api/v1/me', { token: String(signIn.body.token) });
    expect(me.body).toMatchObject({ accountType: 'child', role: 'child', parentId, scopes: ['announcements', 'events'] });
    expect(me.body).not.toHaveProperty('email');
  });

  it('signs a child in with its password', async () => {
    const signIn = await api.signInChild('page-kid', 'river-otter-lamp-42', { kind: 'password', headers: fromNewAddress() });
    expect(signIn.status).toBe(200);
  });

  it('gives an unknown username and a wrong PIN the same answer', async () => {
    const unknown = await api.signInChild('nobody-here', '481592', { headers: fromNewAddress() });
    const wrong = await api.signInChild('sunny.kid', '000111', { headers: fromNewAddress() });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    const strip = (body: Record<string, unknown>) => ({ ...body, traceId: undefined });
    expect(strip(unknown.body)).toEqual(strip(wrong.body));
    expect(unknown.body.code).toBe('invalid_credentials');
    const reasons = auditRows(databaseFile)
      .filter((row) => row.eventType === 'authn_login_fail' && (row.traceId === unknown.body.traceId || row.traceId === wrong.body.traceId))
      .map((row) => row.reason);
    expect(reasons.sort()).toEqual(['bad_credentials', 'user_not_found']);
  });

  it('answers 429 with Retry-After after 3 consecutive failures of one username', async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<ApiClient['signInChild']>> | undefined;
    for (let attempt = 0; attempt < 4; attempt += 1) {
      last = await api.signInChild('throttled-name', '135792', { headers: fromNewAddress() });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect(last?.body).toMatchObject({ code: 'too_many_attempts' });
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('caps failed sign-ins per client address at 30 in 10 minutes', async () => {
    const address = { 'x-forwarded-for': '203.0.113.99' };
    for (let attempt = 0; attempt < 30; attempt += 1) {
      const response = await api.signInChild(`spray-${attempt}`, '246813', { headers: address });
      expect(response.status).toBe(401);
    }
    const blocked = await api.signInChild('spray-last', '246813', { headers: address });
    expect(blocked.status).toBe(429);
    expect((await api.signInChild('spray-last', '246813', { headers: fromNewAddress() })).status).toBe(401);
  });

  it('refuses a disabled child after its PIN is proven, and revokes its sessions', async () => {
    const created = await api.createChild(parentToken, { username: 'soon-disabled', pin: '582046', scopes: [] });
    const childId = String(created.body.id);
    const session = await api.signInChild('soon-disabled', '582046', { headers: fromNewAddress() });
    const disable = await api.request('PATCH', `/api/v1/children/${childId}`, { token: parentToken, body: { status: 'disabled' } });
    expect(disable.status).toBe(200);
    expect(disable.body).toMatchObject({ status: 'disabled' });
    expect((await api.request('GET', '/api/v1/me', { token: String(session.body.token) })).status).toBe(401);
    const again = await api.signInChild('soon-disabled', '582046', { headers: fromNewAddress() });
    expect(again.status).toBe(403);
    expect(again.body.code).toBe('account_disabled');
    expect((await api.signInChild('soon-disabled', '000222', { headers: fromNewAddress() })).status).toBe(401);
  });

  it('revokes sessions when the parent sets a new PIN, which then works', async () => {
    const created = await api.createChild(parentToken, { username: 'new-pin-kid', pin: '602481', scopes: [] });
    const childId = String(created.body.id);
    const session = await api.signInChild('new-pin-kid', '602481', { headers: fromNewAddress() });
    const change = await api.request('PATCH', `/api/v1/children/${childId}`, { token: parentToken, body: { pin: '917305' } });
    canaries.add('917305');
    expect(change.status).toBe(200);
    expect((await api.request('GET', '/api/v1/me', { token: String(session.body.token) })).status).toBe(401);
    expect((await api.signInChild('new-pin-kid', '602481', { headers: fromNewAddress() })).status).toBe(401);
    expect((await api.signInChild('new-pin-kid', '917305', { headers: fromNewAddress() })).status).toBe(200);
    const revoked = auditRows(databaseFile).filter((r) => r.eventType === 'authn_token_revoked' && r.subjectUserId === childId);
    expect(revoked.map((r) => r.reason)).toEqual(['secret_changed']);
  });

  it('deletes a child: 204, sessions revoked, gone from the list, sign-in refused like a wrong PIN', async () => {
    const created = await api.createChild(parentToken, { username: 'leaving-kid', pin: '730619', scopes: [] });
    const childId = String(created.body.id);
    const session = await api.signInChild('leaving-kid', '730619', { headers: fromNewAddress() });
    expect((await api.request('DELETE', `/api/v1/children/${childId}`, { token: parentToken })).status).toBe(204);
    expect((await api.request('GET', '/api/v1/me', { token: String(session.body.token) })).status).toBe(401);
    expect((await api.signInChild('leaving-kid', '730619', { headers: fromNewAddress() })).status).toBe(401);
    const list = await api.request('GET', '/api/v1/children?limit=200', { token: parentToken });
    expect((list.body.items as { id: string }[]).some((item) => item.id === childId)).toBe(false);
    expect((await api.request('DELETE', `/api/v1/children/${childId}`, { token: parentToken })).status).toBe(404);
  });

  it('keeps children and other parents out of a parent own children', async () => {
    const created = await api.createChild(parentToken, { username: 'guarded-kid', pin: '805137', scopes: [] });
    const child = await api.signInChild('guarded-kid', '805137', { headers: fromNewAddress() });
    expect((await api.request('GET', '/api/v1/children', { token: String(child.body.token) })).status).toBe(403);
    const other = await newParent('parent-stranger');
    const patch = await api.request('PATCH', `/api/v1/children/${String(created.body.id)}`, { token: other.token, body: { scopes: ['media'] } });
    expect(patch.status).toBe(404);
    expect((await api.request('PATCH', '/api/v1/children/not-a-uuid', { token: parentToken, body: { scopes: [] } })).status).toBe(400);
    // An id typed in upper case is the same id on every engine.
    const upper = await api.request('PATCH', `/api/v1/children/${String(created.body.id).toUpperCase()}`, { token: parentToken, body: { scopes: ['media'] } });
    expect(upper.status).toBe(200);
    expect(upper.body).toMatchObject({ id: created.body.id, scopes: ['media'] });
    expect((await api.request('PATCH', `/api/v1/children/${String(created.body.id)}`, { token: parentToken, body: {} })).status).toBe(400);
  });

  it('answers every n_* case of JSONTestSuite with a 4xx', async () => {
    for (const file of readdirSync(JSON_SUITE).filter((name) => name.startsWith('n_'))) {
      const response = await fetch(`${host.baseUrl}/api/v1/auth/child-session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: readFileSync(path.join(JSON_SUITE, file)),
      });
      await response.arrayBuffer();
      expect({ file, clientError: response.status >= 400 && response.status < 500 }).toEqual({ file, clientError: true });
    }
  });
});

/** Wrong PINs, each its own value so every one is a canary and none is the right one. */
function wrongPins(count: number, offset: number): string[] {
  return Array.from({ length: count }, (_, index) => String(7_300_000 + offset + index * 7919));
}

/** The failed sign-ins recorded against `childId` whose secret was evaluated: bad_credentials. */
function evaluatedGuesses(childId: string): number {
  return auditRows(databaseFile).filter((row) => row.subjectUserId === childId && row.reason === 'bad_credentials').length;
}

describe('spellings and bursts', () => {
  it('answers a spelling of a name like an unknown username and counts it under the name: after `SPELL-KID `, ` spell-kid` and `ｓｐｅｌｌ-ｋｉｄ`, the right PIN under `spell-kid` gets 429', async () => {
    const pin = '603917';
    expect((await api.createChild(parentToken, { username: 'spell-kid', pin, scopes: [] })).status).toBe(201);
    const unknown = await api.signInChild('no-such-speller', pin, { headers: fromNewAddress() });
    const strip = (body: Record<string, unknown>) => ({ ...body, traceId: undefined });
    const traceIds: unknown[] = [];
    for (const spelling of ['SPELL-KID ', ' spell-kid', 'ｓｐｅｌｌ-ｋｉｄ']) {
      const attempt = await api.signInChild(spelling, pin, { headers: fromNewAddress() });
      expect(attempt.status, spelling).toBe(401);
      expect(strip(attempt.body), spelling).toEqual(strip(unknown.body));
      traceIds.push(attempt.body.traceId);
    }
    const right = await api.signInChild('spell-kid', pin, { headers: fromNewAddress() });
    expect(right.status).toBe(429);
    expect(right.body.code).toBe('too_many_attempts');
    const reasons = auditRows(databaseFile)
      .filter((row) => traceIds.includes(row.traceId))
      .map((row) => [row.reason, row.subjectUserId]);
    expect(reasons).toEqual(Array(3).fill(['user_not_found', null]));
  });

  it('evaluates at most 10 of 40 wrong guesses fired at once against the account', async () => {
    const created = await api.createChild(parentToken, { username: 'burst-kid', pin: '815064', scopes: [] });
    const childId = String(created.body.id);
    const guesses = wrongPins(40, 1);
    const answers = await Promise.all(guesses.map((pin) => api.signInChild('burst-kid', pin, { headers: fromNewAddress() })));
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([401, 429]));
    const evaluated = evaluatedGuesses(childId);
    // The three free failures at least; never more than the lock allows.
    expect(evaluated).toBeGreaterThanOrEqual(3);
    expect(evaluated).toBeLessThanOrEqual(10);
    expect(answers.filter((answer) => answer.status === 401).length).toBeGreaterThanOrEqual(evaluated);
  });
});

describe('two hosts on one database', () => {
  it('evaluate at most 10 of 40 wrong guesses fired at both at once', async () => {
    const second = await startLocalHost(env.hostEnv);
    try {
      const secondApi = new ApiClient(second.baseUrl, canaries);
      const created = await api.createChild(parentToken, { username: 'twin-burst-kid', pin: '526173', scopes: [] });
      const childId = String(created.body.id);
      const guesses = wrongPins(40, 3);
      const answers = await Promise.all(
        guesses.map((pin, index) => (index % 2 === 0 ? api : secondApi).signInChild('twin-burst-kid', pin, { headers: fromNewAddress() })),
      );
      expect(answers.every((answer) => answer.status === 401 || answer.status === 429)).toBe(true);
      const evaluated = evaluatedGuesses(childId);
      expect(evaluated).toBeGreaterThanOrEqual(3);
      expect(evaluated).toBeLessThanOrEqual(10);
    } finally {
      await second.stop();
      expect(second.invalidLines).toEqual([]);
      expect(canaries.findIn(second.stdout.join('\n'))).toEqual([]);
    }
  });

  it('share the sign-in throttle', async () => {
    const second = await startLocalHost(env.hostEnv);
    try {
      const secondApi = new ApiClient(second.baseUrl, canaries);
      for (let attempt = 0; attempt < 3; attempt += 1) {
        expect((await api.signInChild('shared-counter', '371904', { headers: fromNewAddress() })).status).toBe(401);
      }
      const fourth = await secondApi.signInChild('shared-counter', '371904', { headers: fromNewAddress() });
      expect(fourth.status).toBe(429);
    } finally {
      await second.stop();
      expect(second.invalidLines).toEqual([]);
      expect(canaries.findIn(second.stdout.join('\n'))).toEqual([]);
    }
  });
});

describe('a flood of sign-ins from one address', () => {
  it('lets a child from another address in, and answers what the hasher has no room for with 503 and Retry-After, recording nothing', async () => {
    // A short line, so a flood of 60 overflows it at once.
    const second = await startLocalHost({ ...env.hostEnv, HASH_QUEUE_MAX: '8', HASH_QUEUE_MAX_WAIT_MS: '2000' });
    try {
      const secondApi = new ApiClient(second.baseUrl, canaries);
      const pin = '528147';
      expect((await api.createChild(parentToken, { username: 'flood-survivor', pin, scopes: [] })).status).toBe(201);
      const flooder = { 'x-forwarded-for': '203.0.113.199' };
      const flood = Array.from({ length: 60 }, (_, index) => secondApi.signInChild(`flood-junk-${index}`, '7391846', { headers: flooder }));
      await new Promise((resolve) => setTimeout(resolve, 150));
      const child = await secondApi.signInChild('flood-survivor', pin, { headers: fromNewAddress() });
      const answers = await Promise.all(flood);

      expect(child.status).toBe(200);
      expect(answers.every((answer) => [401, 429, 503].includes(answer.status))).toBe(true);
      const shed = answers.filter((answer) => answer.status === 503);
      expect(shed.length).toBeGreaterThan(0);
      for (const answer of shed) {
        expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(answer.body).toMatchObject({ status: 503, code: 'service_unavailable', detail: expect.any(String) });
      }
      // A refused attempt proved nothing, so nothing was recorded: no audit row carries its trace id.
      const shedTraces = new Set(shed.map((answer) => answer.body.traceId));
      expect(auditRows(databaseFile).filter((row) => shedTraces.has(row.traceId))).toEqual([]);
    } finally {
      await second.stop();
      expect(second.invalidLines).toEqual([]);
      expect(canaries.findIn(second.stdout.join('\n'))).toEqual([]);
    }
  });
});

describe('what the app wrote', () => {
  it('holds no PIN, password, username, hash or token in stdout or the audit log', () => {
    expect(host.invalidLines).toEqual([]);
    expect(canaries.size).toBeGreaterThan(30);
    expect(canaries.findIn(host.stdout.join('\n'))).toEqual([]);
    expect(canaries.findIn(JSON.stringify(auditRows(databaseFile)))).toEqual([]);
  });
});
