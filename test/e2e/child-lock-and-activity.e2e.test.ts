import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/api-client';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import { CanaryTracker } from '../helpers/canaries';
import { startFakeProviders, type FakeProviders } from '../helpers/fake-providers/start-fake-providers';
import type { LocalHost } from '../helpers/local-host';
import { auditRows, readRows, seedNineFailures } from '../helpers/sqlite-reader';

/**
 * A parent hears when a child's account locks, and sees the child's activity, end to end: the
 * local host with SQLite and Azurite, the fan-out function on the queue, fake Expo and ACS. The
 * tenth wrong PIN over HTTP locks the account (401, as every failure); the parent's devices get a
 * push and their address an e-mail naming the child and saying to set a new PIN, each once; the
 * activity endpoint pages the child's sign-ins, failures, lock and section refusals. The child's
 * name, PIN, the parent's address and devices appear in no log line and no audit row.
 */
const PEPPER = 'e2e-lock-pepper-0123456789abcdef01234567';

let env: AuthTestHost;
let fakes: FakeProviders;
let host: LocalHost;
let api: ApiClient;
let databaseFile: string;
const canaries = new CanaryTracker();

let counter = 0;
const unique = (): string => `${(counter += 1)}${randomBytes(3).toString('hex')}`;
let addressCounter = 0;
const fromNewAddress = (): Record<string, string> => ({ 'x-forwarded-for': `198.51.100.${(addressCounter += 1)}` });

interface Parent {
  token: string;
  userId: string;
  email: string;
  devices: string[];
}

async function newParent(devices = 0): Promise<Parent> {
  const id = unique();
  const email = `parent.${id}@canary-mail.test`;
  canaries.add(email);
  const { token, userId, response } = await api.signInAdult(env.idToken(`parent-${id}`, { email, email_verified: true }));
  expect(response.status).toBe(200);
  const tokens: string[] = [];
  for (let n = 0; n < devices; n += 1) {
    const device = `ExponentPushToken[canary${unique()}Lock]`;
    canaries.add(device, device.slice('ExponentPushToken['.length, -1));
    expect((await api.request('PUT', '/api/v1/me/push-tokens', { token, body: { token: device } })).status).toBe(204);
    tokens.push(device);
  }
  return { token, userId, email, devices: tokens };
}

async function newChild(parent: Parent, scopes: string[] = ['events']): Promise<{ id: string; username: string; pin: string }> {
  const username = `wombat.${unique()}`;
  const pin = '739164';
  const created = await api.createChild(parent.token, { username, pin, scopes });
  expect(created.status).toBe(201);
  return { id: String(created.body.id), username, pin };
}


async function until<T>(what: string, read: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  fakes = await startFakeProviders();
  env = await startAuthTestHost('child-lock', canaries, { TRUST_PROXY_HOPS: '1', CHILD_SECRET_PEPPER: PEPPER, ...fakes.env }, { azurite: true });
  ({ host, api, databaseFile } = env);
});

afterAll(async () => {
  await env?.stop();
  await fakes?.close();
});

describe('a child account that locks', () => {
  let parent: Parent;
  let child: { id: string; username: string; pin: string };

  beforeAll(async () => {
    parent = await newParent(2);
    child = await newChild(parent);
    seedNineFailures(databaseFile, PEPPER, child.username);
    canaries.add('480213');
    const tenth = await api.signInChild(child.username, '480213', { headers: fromNewAddress() });
    expect(tenth.status).toBe(401);
    expect(tenth.body.code).toBe('invalid_credentials');
  });

  it('tells the parent by push on every device and by e-mail, naming the child and what to do', async () => {
    const emails = await until('the notice e-mail', () => {
      const found = fakes.acs.emailsTo(parent.email);
      return found.length > 0 ? found : undefined;
    });
    expect(emails).toEqual([
      expect.objectContaining({ subject: `${child.username}'s account is locked`, plainText: expect.stringContaining(`set a new PIN for ${child.username}`) }),
    ]);
    await until('the pushes', () => (parent.devices.every((d) => fakes.expo.deliveriesTo(d).length > 0) ? true : undefined));
    for (const device of parent.devices) {
      expect(fakes.expo.deliveriesTo(device)).toEqual([
        expect.objectContaining({ title: `${child.username}'s account is locked`, data: { notice: 'child_locked', childId: child.id } }),
      ]);
    }
    const notices = readRows<{ id: string; enqueuedAt: string | null }>(databaseFile, 'SELECT id, enqueuedAt FROM AccountNotices WHERE subjectUserId = @id', { id: child.id });
    expect(notices).toEqual([{ id: expect.any(String), enqueuedAt: expect.any(String) }]);
    const noticeId = String(notices[0]?.id);
    await until('the ledger', () => (host.lines.some((l) => l.message === 'account notice delivered' && l.noticeId === noticeId) ? true : undefined));
    expect(readRows(databaseFile, 'SELECT channel, result, attempts FROM AccountNoticeDeliveries WHERE noticeId = @noticeId ORDER BY channel', { noticeId })).toEqual([
      { channel: 'email', result: 'accepted', attempts: 1 },
      { channel: 'push', result: 'success', attempts: 1 },
    ]);
    const lockLines = host.lines.filter((l) => l.message === 'child account locked');
    expect(lockLines).toEqual([expect.objectContaining({ level: 'warn', noticeId })]);
    expect(auditRows(databaseFile).filter((r) => r.eventType === 'authn_login_lock' && r.subjectUserId === child.id)).toHaveLength(1);
  });

  it('sends nothing twice when the same notice message arrives again, and a locked account stays refused', async () => {
    const before = { push: fakes.expo.deliveries.length, email: fakes.acs.emailsTo(parent.email).length };
    const right = await api.signInChild(child.username, child.pin, { headers: fromNewAddress() });
    expect([401, 429]).toContain(right.status);
    const [notice] = readRows<{ id: string }>(databaseFile, 'SELECT id FROM AccountNotices WHERE subjectUserId = @id', { id: child.id });
    const { QueueClient } = await import('@azure/storage-queue');
    const queue = new QueueClient(String(env.azurite?.connectionString), 'notification-fanout');
    await queue.sendMessage(Buffer.from(JSON.stringify({ notice: { id: notice?.id, kind: 'child_locked' } })).toString('base64'));
    await until('the second handling', () =>
      host.lines.filter((l) => l.message === 'account notice delivered' && l.noticeId === notice?.id).length >= 2 ? true : undefined,
    );
    expect({ push: fakes.expo.deliveries.length, email: fakes.acs.emailsTo(parent.email).length }).toEqual(before);
    expect(readRows(databaseFile, 'SELECT COUNT(*) AS n FROM AccountNotices WHERE subjectUserId = @id', { id: child.id })).toEqual([{ n: 1 }]);
  });
});

describe("GET /api/v1/children/{id}/activity", () => {
  let parent: Parent;
  let child: { id: string; username: string; pin: string };
  let childToken: string;

  beforeAll(async () => {
    parent = await newParent();
    child = await newChild(parent, ['events']);
    const signedIn = await api.signInChild(child.username, child.pin, { headers: fromNewAddress() });
    expect(signedIn.status).toBe(200);
    childToken = String(signedIn.body.token);
    canaries.add('905713');
    expect((await api.signInChild(child.username, '905713', { headers: fromNewAddress() })).status).toBe(401);
    // Announcements are not among the child's sections: a refusal.
    expect((await api.request('GET', '/api/v1/announcements', { token: childToken })).status).toBe(403);
  });

  const activity = (query = '', token = parent.token, id = child.id) => api.request('GET', `/api/v1/children/${id}/activity${query}`, { token });

  it("lists the child's sign-ins, failures and refusals newest first: time, outcome and reason only", async () => {
    const response = await activity();
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      items: [
        { time: expect.any(String), outcome: 'section_refused', reason: 'announcements' },
        { time: expect.any(String), outcome: 'sign_in_failed', reason: 'bad_credentials' },
        { time: expect.any(String), outcome: 'signed_in', reason: null },
      ],
      nextCursor: null,
    });
    const text = JSON.stringify(response.body);
    for (const other of [parent.userId, child.id, '198.51.100']) expect(text).not.toContain(other);
    expect(canaries.findIn(text)).toEqual([]);
  });

  it('pages with limit and an opaque cursor, and includes the lock of a locked child', async () => {
    const first = await activity('?limit=2');
    expect(first.status).toBe(200);
    expect((first.body.items as unknown[]).length).toBe(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await activity(`?limit=2&cursor=${String(first.body.nextCursor)}`);
    expect(second.body).toEqual({ items: [{ time: expect.any(String), outcome: 'signed_in', reason: null }], nextCursor: null });

    const locked = await newChild(parent);
    seedNineFailures(databaseFile, PEPPER, locked.username);
    canaries.add('604182');
    expect((await api.signInChild(locked.username, '604182', { headers: fromNewAddress() })).status).toBe(401);
    const lockedActivity = await activity('', parent.token, locked.id);
    expect(lockedActivity.body.items).toEqual([
      { time: expect.any(String), outcome: expect.stringMatching(/^(locked|sign_in_failed)$/), reason: expect.any(String) },
      { time: expect.any(String), outcome: expect.stringMatching(/^(locked|sign_in_failed)$/), reason: expect.any(String) },
    ]);
    expect((lockedActivity.body.items as { outcome: string; reason: string }[]).map((i) => `${i.outcome}:${i.reason}`).sort()).toEqual([
      'locked:too_many_failures',
      'sign_in_failed:bad_credentials',
    ]);
  });

  it("refuses a child's token (403), another parent (404), bad ids, limits and cursors (400) and anonymous callers (401)", async () => {
    expect((await activity('', childToken)).status).toBe(403);
    const stranger = await newParent();
    const foreign = await activity('', stranger.token);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not_found');
    expect((await activity('', parent.token, '6f1c2d3e-4b5a-4c6d-8e7f-8091a2b3c4d5')).status).toBe(404);
    expect((await activity('', parent.token, 'not-a-uuid')).status).toBe(400);
    for (const query of ['?limit=0', '?limit=101', '?limit=abc', '?cursor=bm90LWEtY3Vyc29y']) {
      const refused = await activity(query);
      expect(refused.status, query).toBe(400);
      expect(refused.body.code).toBe('invalid_request');
    }
    expect((await activity('?limit=100')).status).toBe(200);
    const anonymous = await api.request('GET', `/api/v1/children/${child.id}/activity`);
    expect(anonymous.status).toBe(401);
  });
});

describe('what the app wrote', () => {
  it("holds no child's name, PIN, parent's address or device token in stdout or the audit log", () => {
    expect(host.invalidLines).toEqual([]);
    expect(canaries.size).toBeGreaterThan(10);
    // Positive control: the search finds a name the e-mail carried.
    expect(canaries.findIn(String(fakes.acs.emailDeliveries[0]?.subject ?? 'none')).length).toBeGreaterThanOrEqual(1);
    expect(canaries.findIn(host.stdout.join('\n'))).toEqual([]);
    expect(canaries.findIn(JSON.stringify(auditRows(databaseFile)))).toEqual([]);
  });
});
